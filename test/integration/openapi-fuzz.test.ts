/**
 * Hardening item 5: Schemathesis fuzzes every operation of /openapi/v1.json (examples, coverage, fuzzing and
 * stateful phases) against a real API process, with a fixed seed and a bounded time, and finds no 5xx and no
 * response that breaks the document's own schemas, statuses, content types or headers. `npm run fuzz` runs longer.
 */
import { expect } from 'chai';
import { ensureSchemathesis, fuzzTheApi } from '../fuzz/fuzz-stack';

const FUZZ_SECONDS = Number(process.env.FUZZ_TEST_SECONDS ?? 60);

describe('OpenAPI fuzzing (Schemathesis, stateful, against the real API process)', function () {
  this.timeout((FUZZ_SECONDS + 120) * 1000); // per test

  before(async () => {
    await ensureSchemathesis();
  });

  // Each host documents its own routes: the sandbox's document adds the simulation routes.
  for (const mode of ['production', 'sandbox'] as const) {
    it(`finds no 5xx and no response outside the ${mode} document in ${FUZZ_SECONDS} s of seed 1`, async () => {
      const result = await fuzzTheApi({ seed: 1, maxTimeSeconds: FUZZ_SECONDS, mode });
      // The whole report on failure: each finding comes with a curl line that reproduces it.
      expect(result.exitCode, result.output).to.equal(0);
      expect(result.output).to.match(/Test cases:\s+\d+ generated/);
    });
  }
});
