/**
 * The pages in production configuration (APP_ENV=production), directly and behind a TLS-terminating proxy: a cookie
 * page never answers 500 for want of https (forwarded-protocol.ts, https-pages.ts). Over plain HTTP it is redirected
 * to the public https URL, or, when the public URL is not https, refused with a page that says what to set; behind a
 * trusted proxy's `X-Forwarded-Proto: https` its cookies are `__Host-`, `Secure`, `HttpOnly` and `SameSite`, and its
 * redirects name the public https host. A proxy header from a peer that is not a trusted proxy changes nothing.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { testEnv } from '../support/env';
import { killGroup } from '../support/processes';
import { startApi, type ApiProcess } from '../support/service-processes';
import { startTestServer, type TestServer } from '../support/app';

const PUBLIC = 'https://console.example.test';
const productionEnv = () => ({
  APP_ENV: 'production',
  WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
});
const PAGES = ['/console/sign-in', '/console', '/portal/debt', '/notifications/opt-out/not-a-token'];

function setCookies(res: Response): string[] {
  return res.headers.getSetCookie();
}

describe('production configuration: the issue’s two commands (compiled API, plain HTTP)', function () {
  this.timeout(60_000);
  let api: ApiProcess;
  before(async () => {
    api = await startApi(
      {
        ...productionEnv(),
        API_PROCESSES: '1',
        API_MODE: 'production',
        DATABASE_URL: testEnv.databaseUrl,
        REDIS_URL: testEnv.redisUrl,
      },
      'dist/api/server.js',
    );
  });
  after(() => killGroup(api));

  for (const proto of [undefined, 'https']) {
    for (const path of PAGES) {
      it(`${path}${proto ? ' with X-Forwarded-Proto: https from an untrusted peer' : ''}: a page saying what to set, not a 500`, async () => {
        const res = await fetch(`${api.baseUrl}${path}`, {
          redirect: 'manual',
          headers: proto ? { 'X-Forwarded-Proto': proto } : {},
        });
        const body = await res.text();
        expect(res.status, body).to.equal(403);
        expect(body).to.contain('served over HTTPS only').and.contain('PUBLIC_BASE_URL').and.contain('TRUSTED_PROXIES');
        expect(setCookies(res)).to.deep.equal([]);
      });
    }
  }

  it('the API itself still answers over the same port (no cookie, no redirect)', async () => {
    const res = await fetch(`${api.baseUrl}/v1/organization`);
    expect(res.status).to.equal(401);
    expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
  });

  it('its log never says a secure cookie was refused', () => {
    expect(api.output()).to.not.contain('Cannot send secure cookie');
    expect(api.output()).to.not.match(/"level":(50|60)/);
  });
});

describe('production configuration behind a TLS-terminating proxy', () => {
  let server: TestServer;
  let untrusting: TestServer;
  before(async () => {
    const env = { ...productionEnv(), PUBLIC_BASE_URL: PUBLIC };
    server = await startTestServer({ env: { ...env, TRUSTED_PROXIES: '127.0.0.1' } });
    untrusting = await startTestServer({ env: { ...env, TRUSTED_PROXIES: '10.0.0.1' } });
  });
  after(async () => {
    await server.close();
    await untrusting.close();
  });

  it('the sign-in page behind the proxy sets its cookie __Host-, Secure, HttpOnly, SameSite=Lax', async () => {
    const res = await fetch(`${server.baseUrl}/console/sign-in`, { headers: { 'X-Forwarded-Proto': 'https' } });
    expect(res.status).to.equal(200);
    const [cookie, ...rest] = setCookies(res);
    expect(rest).to.deep.equal([]);
    expect(cookie).to.match(/^__Host-console_csrf=[A-Za-z0-9_-]{43}; /);
    const attributes = cookie!
      .split('; ')
      .slice(1)
      .map((a) => a.toLowerCase().split('=')[0]);
    expect(attributes).to.include.members(['path', 'secure', 'httponly', 'samesite']);
    expect(cookie)
      .to.match(/; samesite=lax/i)
      .and.match(/; path=\//);
  });

  for (const path of PAGES) {
    it(`${path} over plain HTTP: 308 to the same path and query on the public https URL`, async () => {
      const res = await fetch(`${server.baseUrl}${path}?a=1&b=2`, { redirect: 'manual' });
      expect(res.status).to.equal(308);
      expect(res.headers.get('location')).to.equal(`${PUBLIC}${path}?a=1&b=2`);
      expect(setCookies(res)).to.deep.equal([]);
    });
  }

  it('a peer that is not a trusted proxy cannot claim https: the same 308', async () => {
    const res = await fetch(`${untrusting.baseUrl}/console/sign-in`, {
      redirect: 'manual',
      headers: { 'X-Forwarded-Proto': 'https' },
    });
    expect(res.status).to.equal(308);
    expect(res.headers.get('location')).to.equal(`${PUBLIC}/console/sign-in`);
  });

  it('a redirect behind the proxy names the public https host, not the Host the proxy forwarded', async () => {
    const res = await fetch(`${server.baseUrl}/console`, {
      redirect: 'manual',
      headers: { 'X-Forwarded-Proto': 'https' },
    });
    expect(res.status).to.equal(302);
    expect(res.headers.get('location')).to.equal(`${PUBLIC}/console/sign-in`);
  });

  it('a form posted from the public origin passes the origin check behind the proxy', async () => {
    const page = await fetch(`${server.baseUrl}/console/sign-in`, { headers: { 'X-Forwarded-Proto': 'https' } });
    const cookie = setCookies(page)[0]!.split(';')[0]!;
    const token = cookie.split('=')[1]!;
    const res = await fetch(`${server.baseUrl}/console/sign-in/link`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'X-Forwarded-Proto': 'https',
        origin: PUBLIC,
        cookie,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ _csrf: token, token: 'not-a-link' }).toString(),
    });
    // Past the origin and token checks: the link itself is refused, as a page.
    expect(res.status).to.equal(400);
    expect(await res.text()).to.contain('Link expired or used');
  });

  it('the API, the index and the guides answer over plain HTTP as before (no cookies there)', async () => {
    for (const [path, status] of [
      ['/v1/organization', 401],
      ['/', 200],
      ['/docs/', 200],
    ] as const) {
      const res = await fetch(`${server.baseUrl}${path}`, { redirect: 'manual' });
      expect(res.status, path).to.equal(status);
    }
  });

  // Nothing answers 500 in production that answers 200 in development: every anonymous GET of the route table and
  // of the pages, in development configuration and in production behind the proxy, answers the same status.
  it('every anonymous page and document answers the same status in production behind the proxy as in development', async () => {
    const development = await startTestServer();
    try {
      const paths = [
        ...server.built.routes
          .filter((r) => r.method === 'get' && r.auth.kind === 'none' && !r.path.includes('{'))
          .map((r) => r.path),
        '/docs/errors/not_found',
        '/console/sign-in',
        '/console/sign-in/link?token=not-a-token',
        '/console',
        '/console/keys',
        '/portal/debt',
        '/portal/link/not-a-token',
        '/notifications/opt-out/not-a-token',
      ];
      expect(paths).to.include.members(['/', '/healthz', '/openapi/v1.json', '/docs/']);
      for (const path of paths) {
        const [dev, prod] = await Promise.all([
          fetch(`${development.baseUrl}${path}`, { redirect: 'manual' }),
          fetch(`${server.baseUrl}${path}`, { redirect: 'manual', headers: { 'X-Forwarded-Proto': 'https' } }),
        ]);
        expect(prod.status, path).to.equal(dev.status);
        // (/healthz answers 503 in both: these test apps have no Temporal server, and it says so.)
        if (path !== '/healthz') expect(prod.status, path).to.be.below(500);
      }
    } finally {
      await development.close();
    }
  });
});
