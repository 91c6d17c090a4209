/**
 * The console's Placements pages (web/console/placements) over plain HTTP against the real app, database, document
 * store and Temporal: an upload as a no-JavaScript multipart form (its CSRF token first) starts the placement and is
 * audited; a viewer, a form without the token and a file with an unknown column record nothing; another
 * organisation's placement is a 404 everywhere; the running page refreshes itself without JavaScript and allows its
 * one same-origin script; cancel is audited; the downloads give the failed rows exactly as uploaded and the problems;
 * the failed rows (debtor data) only to owners and admins, a 403 to the other roles; a placement whose file's
 * retention ended keeps its problems but offers neither its failed rows nor its import.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { createOrganization } from '../../core/access/organizations';
import { recordRowProblems } from '../../core/placements/placements';
import { createStaffUser, type StaffRole } from '../../core/staff/staff-users';
import { startTestServer, type TestServer } from '../support/app';
import { newConsoleSession } from '../support/console-http';
import { testDb } from '../support/resources';

const HEADER = 'externalAccountId,originalPrincipal,debtorReferenceId,debtorFirstName,debtorLastName,debtorEmail';
const ROWS = [
  'CP-1,10,D-1,Ava,Harris,ava@example.com',
  'CP-2,oops,D-2,"Li, Jr",Bo,bo@example.com', // row 3: failed
  'CP-3,12,D-3,Cy,Ng,cy@example.com', // row 4: skipped
  'CP-4,13,D-4,Di,"Quote ""Q""",not-an-email', // row 5: failed
];
const FILE = `${HEADER}\r\n${ROWS.join('\r\n')}\r\n`;

interface Answer {
  status: number;
  location: string | null;
  text: string;
  headers: Headers;
}

describe('console: Placements pages', function () {
  this.timeout(30_000);
  let server: TestServer;
  let organizationId: string;
  let otherOrganizationId: string;

  before(async () => {
    server = await startTestServer();
    organizationId = (await createOrganization(testDb(), { name: 'Placements Org', mode: 'production' })).id;
    otherOrganizationId = (await createOrganization(testDb(), { name: 'Another Org', mode: 'production' })).id;
  });
  after(async () => {
    await testDb()('organizations').whereIn('id', [organizationId, otherOrganizationId]).delete();
    await server.close();
  });

  async function visitor(role: StaffRole, orgId = organizationId) {
    const email = `${role}-${randomUUID()}@example.test`;
    const user = await createStaffUser(testDb(), orgId, { email, role });
    const id = await newConsoleSession('production', { userId: user.id, organizationId: orgId, email, role });
    const cookie = `console_session=${id}`;
    const answer = async (res: Response): Promise<Answer> => ({
      status: res.status,
      location: res.headers.get('location'),
      text: await res.text(),
      headers: res.headers,
    });
    const get = async (path: string) =>
      answer(await fetch(`${server.baseUrl}${path}`, { headers: { cookie }, redirect: 'manual' }));
    const token = async (path: string) =>
      /name="_csrf" value="([A-Za-z0-9_-]{43})"/.exec((await get(path)).text)?.[1] ?? '';
    return {
      get,
      token,
      /** The upload form as a browser without JavaScript sends it: the token first, then the file, then the box. */
      async upload(
        text: string,
        options: { fileName?: string; type?: string; csrf?: string | null; validateOnly?: boolean } = {},
      ) {
        const form = new FormData();
        const csrf = options.csrf === undefined ? await token('/console/placements') : options.csrf;
        if (csrf !== null) form.append('_csrf', csrf);
        form.append('file', new Blob([text], { type: options.type ?? 'text/csv' }), options.fileName ?? 'accounts.csv');
        if (options.validateOnly) form.append('validate_only', 'yes');
        return answer(
          await fetch(`${server.baseUrl}/console/placements`, {
            method: 'POST',
            redirect: 'manual',
            headers: { cookie, origin: server.baseUrl },
            body: form,
          }),
        );
      },
      async post(path: string, csrf: string) {
        return answer(
          await fetch(`${server.baseUrl}${path}`, {
            method: 'POST',
            redirect: 'manual',
            headers: { cookie, origin: server.baseUrl, 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ _csrf: csrf }).toString(),
          }),
        );
      },
    };
  }

  const placements = (orgId = organizationId) => testDb()('placements').where({ organization_id: orgId });
  const audits = (action: string) =>
    testDb()('audit_log')
      .where('organization_id', organizationId)
      .andWhere('action', action)
      .select<{ target: string; details: unknown }[]>('target', 'details');

  async function uploaded(owner: Awaited<ReturnType<typeof visitor>>): Promise<string> {
    const answer = await owner.upload(FILE);
    expect(answer.status, answer.text).to.equal(303);
    const id = /^\/console\/placements\/([0-9a-f-]{36})$/.exec(answer.location ?? '')?.[1];
    expect(id, String(answer.location)).to.be.a('string');
    return id!;
  }

  it('uploads a file from the form without JavaScript, starts the placement and audits the upload', async () => {
    const owner = await visitor('owner');
    const list = await owner.get('/console/placements');
    expect(list.status).to.equal(200);
    expect(list.text).to.include('enctype="multipart/form-data"').and.include('type="file"');

    const id = await uploaded(owner);
    const row = await placements().where({ id }).first<Record<string, unknown>>();
    expect(row).to.include({ status: 'Validating', file_name: 'accounts.csv', format: 'csv', validate_only: false });
    const [entry] = await audits('placement.uploaded').where({ target: id });
    expect(entry?.details).to.deep.equal({ fileName: 'accounts.csv', format: 'csv', validateOnly: false });

    const page = await owner.get(`/console/placements/${id}`);
    expect(page.status).to.equal(200);
    expect(page.text).to.include('Checking the rows');
    // Without JavaScript it refreshes itself; with it, its one script (same origin, by the page's CSP) polls.
    expect(page.text).to.match(/<noscript><meta http-equiv="refresh" content="2"\/?><\/noscript>/);
    const scriptSrc = /<script src="([^"]+)"/.exec(page.text)?.[1];
    expect(scriptSrc).to.match(/^\/console\/assets\/placements\/progress\.[0-9a-f]{12}\.js$/);
    expect(page.headers.get('content-security-policy'))
      .to.include("script-src 'self'")
      .and.include("connect-src 'self'");
    const script = await owner.get(scriptSrc!);
    expect(script.status).to.equal(200);
    expect(script.headers.get('content-type')).to.match(/^text\/javascript/);
    expect(script.text).to.include('data-progress-url');

    const progress = await owner.get(`/console/placements/${id}/progress`);
    expect(progress.status).to.equal(200);
    expect(JSON.parse(progress.text)).to.include({ status: 'Validating', finished: false, done: 0, total: 0 });

    const listed = await owner.get('/console/placements');
    expect(listed.text).to.include(`/console/placements/${id}`);
  });

  it('takes a check-only upload as a dry run, and imports its file from its page once the check is done', async () => {
    const owner = await visitor('admin');
    const answer = await owner.upload(FILE, { validateOnly: true, fileName: 'dry.csv' });
    expect(answer.status, answer.text).to.equal(303);
    const dry = await placements().where({ file_name: 'dry.csv' }).first<Record<string, unknown>>();
    expect(dry).to.include({ validate_only: true });
    const checkId = String(dry.id);
    const csrf = await owner.token(`/console/placements/${checkId}`);
    // Still checking: nothing to import yet.
    expect((await owner.get(`/console/placements/${checkId}`)).text).not.to.include('Import this file');
    expect((await owner.post(`/console/placements/${checkId}/import`, csrf)).status).to.equal(409);

    await placements().where({ id: checkId }).update({ status: 'CompletedWithErrors', rows: 4, failed: 1 });
    const page = await owner.get(`/console/placements/${checkId}`);
    expect(page.text).to.include('Import this file').and.include('1 of 4 rows would fail');
    const imported = await owner.post(`/console/placements/${checkId}/import`, csrf);
    expect(imported.status, imported.text).to.equal(303);
    const id = /^\/console\/placements\/([0-9a-f-]{36})$/.exec(imported.location ?? '')?.[1];
    const row = await placements().where({ id }).first<Record<string, unknown>>();
    expect(row).to.include({ validate_only: false, status: 'Validating', storage_key: dry.storage_key });
    const [entry] = await audits('placement.uploaded').where({ target: id });
    expect(entry?.details).to.deep.equal({
      fileName: 'dry.csv',
      format: 'csv',
      validateOnly: false,
      checkedBy: checkId,
    });

    // A placement that was no check cannot be imported again this way; a viewer cannot import at all.
    expect((await owner.post(`/console/placements/${id}/import`, csrf)).status).to.equal(409);
    const viewer = await visitor('viewer');
    const viewerCsrf = await viewer.token('/console/placements');
    expect((await viewer.post(`/console/placements/${checkId}/import`, viewerCsrf)).status).to.equal(403);
  });

  it('records nothing for a viewer, a form without its token, or a file with an unknown column', async () => {
    const before = (await placements()).length;
    const viewer = await visitor('viewer');
    const refused = await viewer.upload(FILE);
    expect(refused.status).to.equal(403);
    expect((await viewer.get('/console/placements')).text).to.include('Only an owner or an admin can upload');

    const owner = await visitor('owner');
    expect((await owner.upload(FILE, { csrf: null })).status).to.equal(403);
    expect((await owner.upload(FILE, { csrf: 'x'.repeat(43) })).status).to.equal(403);
    const unknown = await owner.upload(`${HEADER},colour\r\nCP-9,10,D-9,A,B,a@example.com,red\r\n`);
    expect(unknown.status).to.equal(400);
    expect(unknown.text).to.include('colour');
    expect((await owner.upload('not a placement', { fileName: 'notes.txt', type: 'text/plain' })).status).to.equal(415);
    expect((await placements()).length).to.equal(before);
  });

  it('answers another organisation’s placement as not found, on every route', async () => {
    const id = await uploaded(await visitor('owner'));
    const stranger = await visitor('owner', otherOrganizationId);
    for (const path of ['', '/progress', '/failed-rows.csv', '/problems.csv']) {
      expect((await stranger.get(`/console/placements/${id}${path}`)).status, path).to.equal(404);
    }
    const csrf = await stranger.token('/console/placements');
    expect((await stranger.post(`/console/placements/${id}/cancel`, csrf)).status).to.equal(404);
    expect((await stranger.post(`/console/placements/${id}/import`, csrf)).status).to.equal(404);
    expect(await placements().where({ id }).first()).to.include({ cancel_requested: false });
    expect((await stranger.get(`/console/placements/${randomUUID()}`)).status).to.equal(404);
  });

  it('cancels a running placement for an owner or admin, audited; a viewer cannot', async () => {
    const admin = await visitor('admin');
    const id = await uploaded(admin);
    const viewer = await visitor('viewer');
    const viewerPage = await viewer.get(`/console/placements/${id}`);
    expect(viewerPage.text).not.to.include('Cancel this placement');
    const viewerToken = await viewer.token('/console/placements');
    expect((await viewer.post(`/console/placements/${id}/cancel`, viewerToken)).status).to.equal(403);
    expect(await audits('placement.cancelled').where({ target: id })).to.have.length(0);

    const page = await admin.get(`/console/placements/${id}`);
    expect(page.text).to.include('Cancel this placement');
    const csrf = /name="_csrf" value="([A-Za-z0-9_-]{43})"/.exec(page.text)![1]!;
    const answer = await admin.post(`/console/placements/${id}/cancel`, csrf);
    expect(answer.status, answer.text).to.equal(303);
    expect(answer.location).to.equal(`/console/placements/${id}`);
    expect(await placements().where({ id }).first()).to.include({ cancel_requested: true });
    expect(await audits('placement.cancelled').where({ target: id })).to.have.length(1);

    // Finished, it cannot be cancelled: a 409 page, nothing audited.
    await placements().where({ id }).update({ status: 'Cancelled', completed_at: testDb().fn.now() });
    expect((await admin.post(`/console/placements/${id}/cancel`, csrf)).status).to.equal(409);
    expect(await audits('placement.cancelled').where({ target: id })).to.have.length(1);
  });

  it('downloads the failed rows exactly as uploaded, with the header, and the problems', async () => {
    const owner = await visitor('owner');
    const id = await uploaded(owner);
    await recordRowProblems(testDb(), organizationId, id, [
      { row: 3, outcome: 'failed', field: 'originalPrincipal', code: 'invalid_principal', message: 'is not a number' },
      { row: 4, outcome: 'skipped', field: 'externalAccountId', code: 'external_account_id_in_use', message: 'open' },
      {
        row: 5,
        outcome: 'failed',
        field: 'debtorEmail',
        code: 'invalid_request',
        message: 'is not an email, "really"',
      },
      { row: 5, outcome: 'failed', field: 'debtorLastName', code: 'invalid_request', message: 'odd' },
    ]);
    await placements()
      .where({ id })
      .update({ status: 'CompletedWithErrors', rows: 4, imported: 1, skipped: 1, failed: 2 });

    const failedRows = await owner.get(`/console/placements/${id}/failed-rows.csv`);
    expect(failedRows.status).to.equal(200);
    expect(failedRows.headers.get('content-type')).to.match(/^text\/csv/);
    expect(failedRows.headers.get('content-disposition')).to.equal(`attachment; filename="failed-rows-${id}.csv"`);
    expect(failedRows.text).to.equal(`${HEADER}\r\n${ROWS[1]}\r\n${ROWS[3]}\r\n`);

    const problems = await owner.get(`/console/placements/${id}/problems.csv`);
    expect(problems.status).to.equal(200);
    expect(problems.text).to.equal(
      'row,outcome,field,code,message,existingDebtId\r\n' +
        '3,failed,originalPrincipal,invalid_principal,is not a number,\r\n' +
        '4,skipped,externalAccountId,external_account_id_in_use,open,\r\n' +
        '5,failed,debtorEmail,invalid_request,"is not an email, ""really""",\r\n' +
        '5,failed,debtorLastName,invalid_request,odd,\r\n',
    );

    const page = await owner.get(`/console/placements/${id}`);
    expect(page.text).to.include('Completed with errors').and.include('is not a number');
    expect(page.text).to.include(`/console/placements/${id}/failed-rows.csv`);
    expect(page.text).not.to.include('http-equiv="refresh"');
    expect(page.headers.get('content-security-policy')).not.to.include('script-src');
  });

  it('gives the failed rows (debtor data as uploaded) to owners and admins only; every role reads the problems', async () => {
    const owner = await visitor('owner');
    const id = await uploaded(owner);
    await recordRowProblems(testDb(), organizationId, id, [
      { row: 3, outcome: 'failed', field: 'originalPrincipal', code: 'invalid_principal', message: 'is not a number' },
    ]);
    await placements().where({ id }).update({ status: 'CompletedWithErrors', rows: 4, imported: 3, failed: 1 });
    for (const role of ['developer', 'viewer'] as const) {
      const visiting = await visitor(role);
      const refused = await visiting.get(`/console/placements/${id}/failed-rows.csv`);
      expect(refused.status, role).to.equal(403);
      expect(refused.text, role).not.to.include('Harris').and.not.include('ava@example.com');
      const page = await visiting.get(`/console/placements/${id}`);
      expect(page.status, role).to.equal(200);
      expect(page.text, role).to.include('is not a number').and.include('an owner or an admin can download them');
      expect(page.text, role).not.to.include('failed-rows.csv');
      expect((await visiting.get(`/console/placements/${id}/problems.csv`)).status, role).to.equal(200);
    }
    const admin = await visitor('admin');
    const allowed = await admin.get(`/console/placements/${id}/failed-rows.csv`);
    expect(allowed.status).to.equal(200);
    expect(allowed.text).to.equal(`${HEADER}\r\n${ROWS[1]}\r\n`);
  });

  it('once a placement’s file is deleted by its retention, offers neither its failed rows nor its import', async () => {
    const owner = await visitor('owner');
    const answer = await owner.upload(FILE, { validateOnly: true, fileName: 'expired.csv' });
    expect(answer.status, answer.text).to.equal(303);
    const { id } = await placements().where({ file_name: 'expired.csv' }).first<{ id: string }>('id');
    await recordRowProblems(testDb(), organizationId, id, [
      { row: 3, outcome: 'failed', field: 'originalPrincipal', code: 'invalid_principal', message: 'is not a number' },
    ]);
    await placements()
      .where({ id })
      .update({ status: 'CompletedWithErrors', rows: 4, failed: 1, completed_at: testDb().fn.now() });
    expect((await owner.get(`/console/placements/${id}`)).text).to.include('Import this file');
    await placements().where({ id }).update({ file_deleted_at: testDb().fn.now() });

    const page = await owner.get(`/console/placements/${id}`);
    expect(page.text).to.include('is not a number').and.include('The file is no longer kept');
    expect(page.text).not.to.include('failed-rows.csv').and.not.include('Import this file');
    const gone = await owner.get(`/console/placements/${id}/failed-rows.csv`);
    expect(gone.status).to.equal(404);
    expect(gone.text).to.include('kept 30 days');
    const csrf = await owner.token(`/console/placements/${id}`);
    const before = (await placements()).length;
    expect((await owner.post(`/console/placements/${id}/import`, csrf)).status).to.equal(409);
    expect((await placements()).length).to.equal(before);
    expect((await owner.get(`/console/placements/${id}/problems.csv`)).text).to.include('is not a number');
  });

  it('neither records an upload nor asks a cancel when its audit entry cannot be written', async () => {
    const owner = await visitor('owner');
    const id = await uploaded(owner);
    const before = (await placements()).length;
    const csrf = await owner.token(`/console/placements/${id}`);
    await withAuditRefused(organizationId, async () => {
      expect((await owner.upload(FILE)).status).to.equal(500);
      expect((await owner.post(`/console/placements/${id}/cancel`, csrf)).status).to.equal(500);
    });
    expect((await placements()).length).to.equal(before);
    expect(await placements().where({ id }).first<Record<string, unknown>>()).to.include({ cancel_requested: false });
  });
});

/** Refuses every audit entry of `organizationId` while `work` runs: a trigger, dropped afterwards. */
async function withAuditRefused(organizationId: string, work: () => Promise<void>): Promise<void> {
  const fn = `test_refuse_audit_${randomUUID().replace(/-/g, '')}`;
  const db = testDb();
  await db.raw(
    `create function ${fn}() returns trigger language plpgsql as $$ begin raise exception 'audit refused'; end $$`,
  );
  // DDL takes no bind parameters: the id (a uuid made here) is quoted as a literal.
  await db.raw(
    `create trigger ${fn} before insert on audit_log for each row when (new.organization_id = '${organizationId}') execute function ${fn}()`,
  );
  try {
    await work();
  } finally {
    await db.raw(`drop trigger ${fn} on audit_log`);
    await db.raw(`drop function ${fn}()`);
  }
}
