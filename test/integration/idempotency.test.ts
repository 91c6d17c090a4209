import { expect } from 'chai';
import { deleteExpiredIdempotencyRecords } from '../../core/platform/idempotency-store';
import { useApiSuite } from '../support/api-suite';
import { afterCommitRuns, fixtureRoutes, holdNextCall, type FixtureBody } from '../support/fixture-routes';
import { testDb } from '../support/resources';
import { createTestTenant, jsonHeaders } from '../support/tenants';

describe('Idempotency-Key on mutations', function () {
  this.timeout(30_000);
  const ctx = useApiSuite({ deps: { extraRoutes: fixtureRoutes() } });

  const post = (body: FixtureBody | string, key?: string, path = '/v1/test-fixtures/notes', who = ctx.tenant) =>
    fetch(`${ctx.server.baseUrl}${path}`, {
      method: 'POST',
      headers: jsonHeaders(who, key),
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const sideEffects = async (who = ctx.tenant) =>
    Number((await testDb()('events').where({ organization_id: who.organization.id }).count({ n: '*' }))[0]!.n);

  it('replays the saved response byte for byte, with Idempotent-Replayed: true, and acts once', async () => {
    const first = await post({ note: 'hello' }, 'key-1');
    const firstBody = Buffer.from(await first.arrayBuffer());
    const again = await post({ note: 'hello' }, 'key-1');
    const againBody = Buffer.from(await again.arrayBuffer());
    expect(first.status).to.equal(201);
    expect(again.status).to.equal(201);
    expect(againBody.equals(firstBody)).to.equal(true);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(first.headers.get('idempotent-replayed')).to.equal(null);
    expect(again.headers.get('location')).to.equal(first.headers.get('location'));
    expect(again.headers.get('content-type')).to.equal(first.headers.get('content-type'));
    expect(again.headers.get('original-request-id')).to.equal(first.headers.get('x-request-id'));
    expect(again.headers.get('x-request-id')).not.to.equal(first.headers.get('x-request-id'));
    expect(await sideEffects()).to.equal(1);
  });

  it('acts every time without a key', async () => {
    await post({ note: 'a' });
    await post({ note: 'a' });
    expect(await sideEffects()).to.equal(2);
  });

  it('answers 409 idempotency_conflict for the same key with another body or path', async () => {
    expect((await post({ note: 'one' }, 'key-c')).status).to.equal(201);
    const otherBody = await post({ note: 'two' }, 'key-c');
    expect(otherBody.status, 'other body').to.equal(409);
    expect(((await otherBody.json()) as { title: string }).title).to.equal('idempotency_conflict');
    const otherPath = await post({ note: 'one' }, 'key-c', '/v1/test-fixtures/other-notes');
    expect(otherPath.status, 'other path').to.equal(409);
    expect(((await otherPath.json()) as { title: string }).title).to.equal('idempotency_conflict');
    expect(await sideEffects()).to.equal(1);
  });

  it('answers 409 idempotency_in_progress while the first request runs, then replays', async () => {
    const held = holdNextCall('slow');
    const slow = post({ note: 'slow' }, 'key-p');
    await held.entered;
    const concurrent = await post({ note: 'slow' }, 'key-p');
    expect(concurrent.status).to.equal(409);
    expect(((await concurrent.json()) as { title: string }).title).to.equal('idempotency_in_progress');
    held.release();
    expect((await slow).status).to.equal(201);
    const after = await post({ note: 'slow' }, 'key-p');
    expect(after.headers.get('idempotent-replayed')).to.equal('true');
    expect(await sideEffects()).to.equal(1);
  });

  it('turns 50 concurrent identical requests into exactly one side effect', async () => {
    const responses = await Promise.all(Array.from({ length: 50 }, () => post({ note: 'burst' }, 'key-burst')));
    const bodies = await Promise.all(responses.map((r) => r.text()));
    expect(await sideEffects()).to.equal(1);
    const created = responses.map((r, i) => ({ status: r.status, body: bodies[i]! })).filter((r) => r.status === 201);
    expect(created.length).to.be.greaterThan(0);
    expect(new Set(created.map((r) => r.body)).size).to.equal(1);
    responses.filter((r) => r.status !== 201).forEach((r) => expect(r.status).to.equal(409));
  });

  it('accepts keys up to 200 characters and rejects longer ones with 400 invalid_request', async () => {
    expect((await post({ note: 'x' }, 'k'.repeat(200))).status).to.equal(201);
    const tooLong = await post({ note: 'x' }, 'k'.repeat(201));
    expect(tooLong.status).to.equal(400);
    expect(((await tooLong.json()) as { title: string }).title).to.equal('invalid_request');
    expect(await sideEffects()).to.equal(1);
  });

  it('forgets a key after 24 hours', async () => {
    await post({ note: 'old' }, 'key-e');
    await testDb()('idempotency_keys')
      .where({ organization_id: ctx.tenant.organization.id, key: 'key-e' })
      .update({ expires_at: testDb().raw("now() - interval '1 second'") });
    const later = await post({ note: 'old' }, 'key-e');
    expect(later.status).to.equal(201);
    expect(later.headers.get('idempotent-replayed')).to.equal(null);
    expect(await sideEffects()).to.equal(2);
    const record = await testDb()('idempotency_keys').where({
      organization_id: ctx.tenant.organization.id,
      key: 'key-e',
    });
    expect(record).to.have.length(1);
    const ttlHours = (record[0]!.expires_at.getTime() - Date.now()) / 3_600_000;
    expect(ttlHours).to.be.within(23.9, 24);
  });

  it('scopes keys to the organisation', async () => {
    const other = await createTestTenant();
    expect((await post({ note: 'same' }, 'shared-key')).status).to.equal(201);
    const theirs = await post({ note: 'same' }, 'shared-key', '/v1/test-fixtures/notes', other);
    expect(theirs.status).to.equal(201);
    expect(theirs.headers.get('idempotent-replayed')).to.equal(null);
    expect(await sideEffects()).to.equal(1);
    expect(await sideEffects(other)).to.equal(1);
  });

  it('saves business errors from the handler (rolled back) but not validation failures or 5xx', async () => {
    const refused = await post({ note: 'no', outcome: 'business_error' }, 'key-b');
    const refusedBody = await refused.text();
    expect(refused.status).to.equal(409);
    const replayed = await post({ note: 'no', outcome: 'business_error' }, 'key-b');
    expect(replayed.headers.get('idempotent-replayed')).to.equal('true');
    expect(await replayed.text()).to.equal(refusedBody);

    expect((await post('{"note": ""}', 'key-v')).status).to.equal(400);
    expect((await post({ note: 'valid now' }, 'key-v')).status).to.equal(201);

    expect((await post({ note: 'boom', outcome: 'crash' }, 'key-x')).status).to.equal(500);
    const retried = await post({ note: 'boom', outcome: 'crash' }, 'key-x');
    expect(retried.status).to.equal(500);
    expect(retried.headers.get('idempotent-replayed')).to.equal(null);
    expect(await sideEffects()).to.equal(1); // only "valid now": the refused and crashed writes rolled back
  });

  it('clean-up deletes expired records and keeps live ones', async () => {
    await post({ note: 'keep' }, 'live-key');
    await post({ note: 'drop' }, 'dead-key');
    await testDb()('idempotency_keys')
      .where({ organization_id: ctx.tenant.organization.id, key: 'dead-key' })
      .update({ expires_at: testDb().raw("now() - interval '1 minute'") });
    expect(await deleteExpiredIdempotencyRecords(testDb())).to.be.at.least(1);
    const keys = await testDb()('idempotency_keys').where({ organization_id: ctx.tenant.organization.id }).pluck('key');
    expect(keys).to.deep.equal(['live-key']);
  });

  it('runs after-commit work only for operations that succeeded, never for a saved business error', async () => {
    const note = `after-commit-${Date.now()}`;
    expect((await post({ note, outcome: 'business_error' }, 'key-ac-1')).status).to.equal(409);
    expect((await post({ note, outcome: 'business_error' })).status).to.equal(409);
    expect(afterCommitRuns.filter((n) => n === note)).to.deep.equal([]);
    expect((await post({ note }, 'key-ac-2')).status).to.equal(201);
    expect((await post({ note }, 'key-ac-2')).headers.get('idempotent-replayed')).to.equal('true');
    expect(afterCommitRuns.filter((n) => n === note)).to.deep.equal([note]);
  });
});
