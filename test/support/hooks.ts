/** Mocha root hooks: shared clean-up of the resources the test support modules open lazily. */
import { stopTestLifecycle } from './lifecycle-stack';
import { closeSharedResources } from './resources';

// Test processes (and the API and workers they spawn) may use the public development webhook key.
process.env.APP_ENV ??= 'test';

export const mochaHooks = {
  async afterAll(): Promise<void> {
    await stopTestLifecycle();
    await closeSharedResources();
  },
};
