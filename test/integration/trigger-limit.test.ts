/**
 * A slow Temporal never takes the API down: lifecycle triggers waiting on a hung Temporal frontend
 * are capped per process, and past the cap a trigger is refused at once with 503 and Retry-After instead of joining
 * the wait (and holding a database connection through it). Once Temporal answers, the waiting ones complete.
 */
import { Client, Connection } from '@temporalio/client';
import { expect } from 'chai';
import { createDebtTriggers } from '../../core/lifecycle/triggers';
import { createTriggerLimit } from '../../core/lifecycle/trigger-limit';
import { ApiError } from '../../core/platform/errors';
import { NAMESPACES } from '../../core/temporal/names';
import { useApiSuite } from '../support/api-suite';
import { raiseDebt } from '../support/debt-api';
import { testLifecycle } from '../support/lifecycle-stack';
import { testDb } from '../support/resources';
import { startTcpGate, type TcpGate } from '../support/tcp-gate';
import { waitFor } from '../support/wait';

describe('lifecycle triggers with Temporal hung', function () {
  this.timeout(120_000);
  const ctx = useApiSuite();
  let gate: TcpGate;
  let connection: Connection;

  before(async () => {
    const stack = await testLifecycle();
    gate = await startTcpGate(stack.env.address);
    connection = await Connection.connect({ address: gate.address });
  });
  after(async () => {
    gate?.release();
    await connection?.close();
    await gate?.close();
  });

  it('past the cap a trigger is refused at once with 503 and Retry-After; the waiting ones complete once Temporal answers', async () => {
    const stack = await testLifecycle();
    const limit = createTriggerLimit(2);
    const client = new Client({ connection, namespace: NAMESPACES.production });
    const triggers = createDebtTriggers({
      db: testDb(),
      client,
      mode: 'production',
      taskQueue: stack.taskQueue,
      limit,
    });
    const org = ctx.tenant.organization.id;
    const [first, second, third] = [await raiseDebt(ctx.api), await raiseDebt(ctx.api), await raiseDebt(ctx.api)];

    gate.hang();
    const waiting = [
      triggers.accept(org, first.id),
      triggers.forRequest(`req_${'a'.repeat(32)}`).accept(org, second.id),
    ];
    await waitFor(() => limit.inFlight() === 2, { what: 'both triggers waiting on Temporal' });
    const refused = await triggers.accept(org, third.id).catch((err: unknown) => err);
    expect(refused).to.be.instanceOf(ApiError);
    expect((refused as ApiError).code).to.equal('service_unavailable');
    expect((refused as ApiError).extra.headers).to.have.property('Retry-After');
    expect(limit.inFlight(), 'the refused trigger took no slot').to.equal(2);

    gate.release();
    const done = await Promise.all(waiting);
    expect(done.map((d) => d.status)).to.deep.equal(['Accepted', 'Accepted']);
    expect(limit.inFlight()).to.equal(0);
    expect((await triggers.accept(org, third.id)).status).to.equal('Accepted');
  });
});
