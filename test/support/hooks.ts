/**
 * Mocha root hooks. In a parallel run each worker process loads this file and runs the hooks around each test file;
 * in a serial run they run once around the whole run. Either way the process first works in its own slot (its own
 * database and Redis database: test-slot.ts) and never reaches the development stack (isolation.ts).
 */
import { refuseDevStackConnections } from './isolation';
import { stopTestLifecycle } from './lifecycle-stack';
import { sharedMailSink } from './mail-sink';
import { closeSharedResources } from './resources';
import { prepareTestSlot } from './scratch-databases';

// Test processes (and the API and workers they spawn) may use the public development webhook key.
process.env.APP_ENV ??= 'test';
refuseDevStackConnections();

export const mochaHooks = {
  async beforeAll(): Promise<void> {
    await prepareTestSlot();
    // Mail from a process a test starts without naming a sink lands in this process's own.
    process.env.SMTP_URL = (await sharedMailSink()).smtpUrl;
  },
  async afterAll(): Promise<void> {
    await stopTestLifecycle();
    await closeSharedResources();
  },
};
