/**
 * The placement routes (docs/placements.md) against the real app, database, document store and Temporal: an upload
 * answers 202 with the placement in `Validating` and starts `placement-<id>` (with its search attributes); an unknown
 * column, an empty file, a file of another type or over 50 MiB are refused as problem+json with nothing recorded; an
 * Idempotency-Key replays the first answer and starts nothing more; another tenant's placement is 404; the list, the
 * errors' pages and a cancel.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { PLACEMENT_PRIORITY_KEY } from '../../core/temporal/fairness';
import { SEARCH_ATTRIBUTE_KEYS, workflowIds } from '../../core/temporal/names';
import { useApiSuite } from '../support/api-suite';
import { expectProblem } from '../support/debt-api';
import { testLifecycle } from '../support/lifecycle-stack';
import { testDb } from '../support/resources';
import { createTestTenant } from '../support/tenants';

const HEADER = 'externalAccountId,originalPrincipal,debtorReferenceId,debtorFirstName,debtorLastName,debtorEmail';
const GOOD_CSV = `${HEADER}\nP-1,10,D-1,Ava,Harris,ava@example.com\nP-2,11,D-2,Bo,Li,bo@example.com\n`;

describe('placements API', function () {
  const suite = useApiSuite();

  async function upload(
    text: string | Blob,
    options: { fileName?: string; type?: string; key?: string; query?: string; headers?: Record<string, string> } = {},
  ) {
    const form = new FormData();
    const blob = typeof text === 'string' ? new Blob([text], { type: options.type ?? 'text/csv' }) : text;
    form.append('file', blob, options.fileName ?? 'accounts.csv');
    const res = await fetch(`${suite.server.baseUrl}/v1/placements${options.query ?? ''}`, {
      method: 'POST',
      headers: {
        ...(options.headers ?? suite.tenant.headers),
        ...(options.key ? { 'idempotency-key': options.key } : {}),
      },
      body: form,
    });
    const body = (await res.json()) as Record<string, unknown>;
    return { status: res.status, headers: res.headers, body, text: JSON.stringify(body) };
  }

  async function placementCount(organizationId: string): Promise<number> {
    const [row] = await testDb()('placements')
      .where({ organization_id: organizationId })
      .count<{ n: string }[]>('* as n');
    return Number(row!.n);
  }

  it('answers 202 with the placement Validating and starts its workflow, found by organisation and status', async () => {
    const answer = await upload(GOOD_CSV);
    expect(answer.status, answer.text).to.equal(202);
    expect(answer.body).to.include({
      status: 'Validating',
      format: 'csv',
      fileName: 'accounts.csv',
      validateOnly: false,
    });
    expect(answer.headers.get('location')).to.equal(`/v1/placements/${String(answer.body.id)}`);
    const client = (await testLifecycle()).client('production');
    const description = await client.workflow.getHandle(workflowIds.placement(String(answer.body.id))).describe();
    expect(description.typedSearchAttributes.get(SEARCH_ATTRIBUTE_KEYS.organizationId)).to.equal(
      suite.tenant.organization.id,
    );
    expect(description.typedSearchAttributes.get(SEARCH_ATTRIBUTE_KEYS.placementStatus)).to.equal('Validating');
    // Fair between tenants, and ahead of the lifecycles of the debts it imports within its own organisation.
    expect(description.raw.workflowExecutionInfo?.priority).to.deep.include({
      fairnessKey: suite.tenant.organization.id,
      priorityKey: PLACEMENT_PRIORITY_KEY,
    });
    const read = await suite.api('GET', `/v1/placements/${String(answer.body.id)}`);
    expect(read.status).to.equal(200);
    expect(read.body).to.deep.equal(answer.body);
  });

  it('takes JSON Lines and a dry run', async () => {
    const line = JSON.stringify({ externalAccountId: 'J-1', originalPrincipal: 5, debtorId: randomUUID() });
    const answer = await upload(`${line}\n`, {
      fileName: 'accounts.jsonl',
      type: 'application/x-ndjson',
      query: '?validateOnly=true',
    });
    expect(answer.status, answer.text).to.equal(202);
    expect(answer.body).to.include({ format: 'ndjson', validateOnly: true });
  });

  it('refuses unknown columns, an empty file and another type up front, recording nothing', async () => {
    const unknown = await upload('externalAccountId,principal,metadata.crmId\nA,1,x\n');
    const problem = expectProblem(unknown, 400, 'invalid_request');
    expect(problem.errors).to.deep.equal([
      { path: 'body.file.principal', message: 'is not a field of POST /v1/debts' },
    ]);
    expectProblem(await upload(''), 400, 'invalid_request');
    expectProblem(
      await upload('%PDF-1.7', { fileName: 'accounts.pdf', type: 'application/pdf' }),
      415,
      'unsupported_media_type',
    );
    expect(await placementCount(suite.tenant.organization.id)).to.equal(0);
  });

  it('refuses a file over 50 MiB with 413', async () => {
    const row = 'X-1,10,D-1,Ava,Harris,ava@example.com\n';
    const big = new Blob([HEADER, '\n', row.repeat(Math.ceil((50 * 1024 * 1024) / row.length) + 10)], {
      type: 'text/csv',
    });
    expectProblem(await upload(big), 413, 'payload_too_large');
    expect(await placementCount(suite.tenant.organization.id)).to.equal(0);
  });

  it('replays the first answer under the same Idempotency-Key, with one placement', async () => {
    const key = randomUUID();
    const first = await upload(GOOD_CSV, { key });
    const again = await upload(GOOD_CSV, { key });
    expect(first.status, first.text).to.equal(202);
    expect(again.status, again.text).to.equal(202);
    expect(again.body.id).to.equal(first.body.id);
    expect(await placementCount(suite.tenant.organization.id)).to.equal(1);
    expectProblem(await upload(`${GOOD_CSV}P-3,12,D-3,Cy,Ng,cy@example.com\n`, { key }), 409, 'idempotency_conflict');
  });

  it('keeps each tenant to its own placements', async () => {
    const mine = await upload(GOOD_CSV);
    const other = await createTestTenant();
    const theirs = await upload(GOOD_CSV, { headers: other.headers });
    expect(theirs.status).to.equal(202);
    for (const path of ['', '/errors']) {
      expectProblem(await suite.api('GET', `/v1/placements/${String(theirs.body.id)}${path}`), 404, 'not_found');
    }
    expectProblem(await suite.api('POST', `/v1/placements/${String(theirs.body.id)}/cancel`), 404, 'not_found');
    const list = await suite.api<{ data: { id: string }[] }>('GET', '/v1/placements');
    expect(list.body.data.map((p) => p.id)).to.deep.equal([mine.body.id]);
  });

  it('cancels a running placement once, and refuses to cancel a finished one', async () => {
    const answer = await upload(GOOD_CSV);
    const id = String(answer.body.id);
    const cancel = await suite.api('POST', `/v1/placements/${id}/cancel`);
    expect(cancel.status, cancel.text).to.equal(200);
    expect((await suite.api('POST', `/v1/placements/${id}/cancel`)).status).to.equal(200);
    await testDb()('placements').where({ id }).update({ status: 'Cancelled' });
    expectProblem(await suite.api('POST', `/v1/placements/${id}/cancel`), 409, 'invalid_state');
  });

  it('pages the errors in row order', async () => {
    const answer = await upload(GOOD_CSV);
    const id = String(answer.body.id);
    const problems = [5, 2, 9].map((row) => ({
      placement_id: id,
      organization_id: suite.tenant.organization.id,
      row_number: row,
      seq: 0,
      outcome: 'failed',
      field: 'originalPrincipal',
      code: 'invalid_principal',
      message: 'x',
    }));
    await testDb()('placement_row_problems').insert(problems);
    const first = await suite.api<{ data: { row: number }[]; nextCursor: string }>(
      'GET',
      `/v1/placements/${id}/errors?limit=2`,
    );
    expect(first.body.data.map((e) => e.row)).to.deep.equal([2, 5]);
    const next = await suite.api<{ data: { row: number }[]; nextCursor: null }>(
      'GET',
      `/v1/placements/${id}/errors?limit=2&cursor=${first.body.nextCursor}`,
    );
    expect(next.body).to.deep.include({ nextCursor: null });
    expect(next.body.data.map((e) => e.row)).to.deep.equal([9]);
    expectProblem(await suite.api('GET', `/v1/placements/${id}/errors?cursor=nonsense`), 400, 'invalid_request');
  });
});
