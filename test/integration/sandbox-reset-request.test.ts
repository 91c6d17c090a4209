/**
 * An acknowledged sandbox reset happens. `POST /v1/sandbox/reset` sends its signal before it
 * answers, outside any transaction: when the signal cannot be sent (the failure injected here, in front of the real
 * signal-with-start) the answer is a 503 that nothing saved, and the retry under the same Idempotency-Key sends it and
 * answers 202. Before, the 202 was saved first and the signal sent after the commit: the retry replayed a 202 for a
 * reset nobody had asked the workflow for.
 */
import { expect } from 'chai';
import type { SandboxResets } from '../../core/sandbox/resets';
import { workflowIds } from '../../core/temporal/names';
import { useApiSuite } from '../support/api-suite';
import { expectProblem } from '../support/debt-api';
import { testLifecycle, testSandboxResets } from '../support/lifecycle-stack';

describe('POST /v1/sandbox/reset when the signal cannot be sent', function () {
  this.timeout(60_000);
  let failNext = false;
  const real = testSandboxResets();
  const signalled: string[] = [];
  const resets: SandboxResets = {
    ...real,
    resetNow: async (organizationId) => {
      if (failNext) {
        failNext = false;
        throw new Error('injected: Temporal did not take the signal');
      }
      signalled.push(organizationId);
      return real.resetNow(organizationId);
    },
  };
  const ctx = useApiSuite({ mode: 'sandbox', deps: { sandboxResets: resets } });

  it('answers an unsaved 503, and the retry under the same key signals the workflow and answers 202', async () => {
    const org = ctx.tenant.organization.id;
    const key = { 'idempotency-key': 'reset-1' };
    failNext = true;
    const failed = await ctx.api('POST', '/v1/sandbox/reset', undefined, key);
    expectProblem(failed, 503, 'service_unavailable');
    expect(failed.headers.get('retry-after')).to.equal('2');
    expect(signalled).to.deep.equal([]);
    // The request recorded before the signal was taken back: no reset is shown as under way.
    expect((await ctx.api('GET', '/v1/sandbox/reset')).body.status).to.equal('Scheduled');

    const retried = await ctx.api('POST', '/v1/sandbox/reset', undefined, key);
    expect(retried.status, retried.text).to.equal(202);
    expect(retried.headers.get('idempotent-replayed')).to.equal(null);
    expect(retried.body.status).to.equal('Requested'); // no worker serves this queue: it stays under way
    expect(signalled).to.deep.equal([org]);
    const stack = await testLifecycle();
    const history = await stack.client('sandbox').workflow.getHandle(workflowIds.sandboxReset(org)).fetchHistory();
    const signals = (history.events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes);
    expect(signals.map((e) => e.workflowExecutionSignaledEventAttributes!.signalName)).to.include('resetNow');

    // Replayed from now on: answered, and not asked again.
    const replayed = await ctx.api('POST', '/v1/sandbox/reset', undefined, key);
    expect(replayed.status).to.equal(202);
    expect(replayed.headers.get('idempotent-replayed')).to.equal('true');
    expect(signalled).to.deep.equal([org]);
  });
});
