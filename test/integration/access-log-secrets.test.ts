/**
 * The access log never holds a secret that travels in a path: a portal link's token, an opt-out link's token, or any
 * other 32-byte token we put in a URL. One rule covers them all (request-log.ts `loggablePath`), so a secret path
 * added later is covered without a list to update; ids (UUIDs) stay readable.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { loggablePath } from '../../api/http/middleware/request-log';
import { startTestServer, type TestServer } from '../support/app';
import { waitFor } from '../support/wait';

describe('access log: secrets in paths', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server?.close());

  const token = () => randomBytes(32).toString('base64url');

  it('logs the opt-out, portal and any other token path with the token replaced, by one rule', async () => {
    const paths = [`/notifications/opt-out/${token()}`, `/portal/l/${token()}`, `/somewhere/new/${token()}/x`];
    for (const path of paths) await fetch(`${server.baseUrl}${path}`);
    const logged = await waitFor(
      () => {
        const lines = server.logLines().filter((l) => l.msg === 'request');
        return lines.length >= paths.length && lines.map((l) => String(l.path));
      },
      { what: 'the request lines' },
    );
    const text = JSON.stringify(server.logLines());
    for (const path of paths) expect(text).not.to.contain(path.split('/').find((s) => s.length === 43));
    expect(logged).to.include.members([
      '/notifications/opt-out/:secret',
      '/portal/l/:secret',
      '/somewhere/new/:secret/x',
    ]);
  });

  it('keeps ids and ordinary segments as they are', () => {
    const id = randomUUID();
    expect(loggablePath(`/v1/debts/${id}`)).to.equal(`/v1/debts/${id}`);
    expect(loggablePath('/console/sign-in/link')).to.equal('/console/sign-in/link');
    expect(loggablePath(`/v1/debts/${id}/documents/${token()}`)).to.equal(`/v1/debts/${id}/documents/:secret`);
  });
});
