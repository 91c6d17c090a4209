/** Mocha root hooks: shared clean-up of the resources the test support modules open lazily. */
import { stopTestLifecycle } from './lifecycle-stack';
import { closeSharedResources } from './resources';

export const mochaHooks = {
  async afterAll(): Promise<void> {
    await stopTestLifecycle();
    await closeSharedResources();
  },
};
