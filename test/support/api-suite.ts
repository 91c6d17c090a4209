/**
 * The mocha scaffolding of an API integration suite: one app for the whole suite, and for every test a fresh tenant
 * (a new organisation with a full-scope key) and a caller with that key, so tests never see each other's data.
 */
import { startTestServer, type TestServer, type TestServerOptions } from './app';
import { callerFor, type Caller } from './debt-api';
import { createTestTenant, type TestTenant } from './tenants';

export interface ApiSuite {
  /** Set by the suite's `before` hook. */
  server: TestServer;
  /** Set by `beforeEach`: this test's own organisation and key. */
  tenant: TestTenant;
  /** Set by `beforeEach`: calls `server` as `tenant`. */
  api: Caller;
}

/**
 * Registers the hooks in the calling `describe` and returns the context they fill. Read its fields inside hooks and
 * tests only: when `describe`'s body runs, no hook has run yet.
 */
export function useApiSuite(options: TestServerOptions = {}): ApiSuite {
  const suite = {} as ApiSuite;
  before(async () => {
    suite.server = await startTestServer(options);
  });
  after(async () => {
    await suite.server.close();
  });
  beforeEach(async () => {
    // A key of the app's own mode: a sandbox app takes test keys only.
    suite.tenant = await createTestTenant({ mode: options.mode });
    suite.api = callerFor(suite.server.baseUrl, suite.tenant);
  });
  return suite;
}
