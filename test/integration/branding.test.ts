import { expect } from 'chai';
import { brandingCacheKey, getPortalBranding } from '../../core/branding/portal-cache';
import type { Db } from '../../core/platform/db';
import { useApiSuite } from '../support/api-suite';
import { callerFor, expectProblem } from '../support/debt-api';
import { testDb, testRedis } from '../support/resources';
import { createTestTenant, mintKey } from '../support/tenants';

type Branding = Record<string, string | null>;

const FULL = {
  primaryColor: '#0B5FFF',
  secondaryColor: '#111827',
  logoUrl: 'https://cdn.example.com/logo.svg',
  faviconUrl: 'https://cdn.example.com/favicon.ico',
  brandTagline: 'Fair, flexible repayments',
  supportEmail: 'support@example.com',
  supportPhone: '+61290000000',
  statementFooter: 'Acme Lending Pty Ltd',
};

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('Branding: GET and PATCH /v1/organization/branding, and the portal cache', () => {
  const ctx = useApiSuite();

  it('answers 200 with every field null before branding is first set', async () => {
    const res = await ctx.api<Branding>('GET', '/v1/organization/branding');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({
      primaryColor: null,
      secondaryColor: null,
      logoUrl: null,
      faviconUrl: null,
      brandTagline: null,
      supportEmail: null,
      supportPhone: null,
      statementFooter: null,
      updatedAt: null,
    });
  });

  it('sets every field, and GET returns what PATCH answered', async () => {
    const res = await ctx.api<Branding>('PATCH', '/v1/organization/branding', FULL);
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include(FULL);
    expect(res.body.updatedAt).to.match(/Z$/);
    expect((await ctx.api('GET', '/v1/organization/branding')).body).to.deep.equal(res.body);
  });

  it('merges: absent and null fields keep their values, "" clears logoUrl, faviconUrl and brandTagline', async () => {
    await ctx.api('PATCH', '/v1/organization/branding', FULL);
    const res = await ctx.api<Branding>('PATCH', '/v1/organization/branding', {
      primaryColor: '#ff0000',
      secondaryColor: null,
      logoUrl: '',
      faviconUrl: '',
      brandTagline: '',
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({
      primaryColor: '#ff0000',
      secondaryColor: FULL.secondaryColor,
      logoUrl: null,
      faviconUrl: null,
      brandTagline: null,
      supportEmail: FULL.supportEmail,
      statementFooter: FULL.statementFooter,
    });
    const empty = await ctx.api<Branding>('PATCH', '/v1/organization/branding', {});
    expect(empty.body).to.deep.equal(res.body);
  });

  it('answers invalid_color for anything but #RRGGBB, colours included when emptied', async () => {
    for (const color of ['#FFF', 'red', '#GGGGGG', '#0B5FFF00', '0B5FFF', '']) {
      const res = await ctx.api('PATCH', '/v1/organization/branding', { secondaryColor: color });
      expect(expectProblem(res, 400, 'invalid_color').errors).to.deep.equal([
        { path: 'body.secondaryColor', message: 'must be a #RRGGBB hex colour' },
      ]);
    }
  });

  it('answers invalid_url for URLs that are not absolute https', async () => {
    for (const url of [
      'http://cdn.example.com/logo.png',
      'logo.png',
      '//cdn.example.com/x',
      'https://u:p@cdn.example.com/x',
      'javascript:alert(1)',
    ]) {
      const res = await ctx.api('PATCH', '/v1/organization/branding', { faviconUrl: url });
      expect(expectProblem(res, 400, 'invalid_url').errors).to.deep.equal([
        { path: 'body.faviconUrl', message: 'must be an absolute https URL' },
      ]);
    }
    const unchanged = await ctx.api<Branding>('GET', '/v1/organization/branding');
    expect(unchanged.body.faviconUrl).to.equal(null);
  });

  it('rejects a tagline over 140 characters and unknown fields, naming them', async () => {
    const long = await ctx.api('PATCH', '/v1/organization/branding', { brandTagline: 'x'.repeat(141) });
    expect((expectProblem(long, 400, 'invalid_request').errors as { path: string }[])[0]!.path).to.equal(
      'body.brandTagline',
    );
    expect((await ctx.api('PATCH', '/v1/organization/branding', { brandTagline: 'x'.repeat(140) })).status).to.equal(
      200,
    );
    const unknown = await ctx.api('PATCH', '/v1/organization/branding', { accentColor: '#000000' });
    expect(expectProblem(unknown, 400, 'invalid_request').errors).to.deep.equal([
      { path: 'body.accentColor', message: 'is not a recognised field' },
    ]);
  });

  it('refuses read-only keys with read_only_key, and needs branding:read to read', async () => {
    const readOnly = callerFor(ctx.server.baseUrl, await mintKey(ctx.tenant.organization.id, { readOnly: true }));
    expectProblem(await readOnly('PATCH', '/v1/organization/branding', FULL), 403, 'read_only_key');
    expect((await readOnly('GET', '/v1/organization/branding')).status).to.equal(200);
    const noScope = callerFor(
      ctx.server.baseUrl,
      await mintKey(ctx.tenant.organization.id, { scopes: ['debts:read'] }),
    );
    expectProblem(await noScope('GET', '/v1/organization/branding'), 403, 'forbidden');
  });

  it('serves the portal the new branding through the cache as soon as PATCH has answered, never the old', async () => {
    const orgId = ctx.tenant.organization.id;
    await ctx.api('PATCH', '/v1/organization/branding', FULL);
    for (let round = 0; round < 5; round += 1) {
      const before = await getPortalBranding(testDb(), testRedis(), orgId); // fills the cache
      expect(await testRedis().get(brandingCacheKey(orgId))).to.be.a('string');
      expect(await getPortalBranding(testDb(), testRedis(), orgId)).to.deep.equal(before); // a cache hit
      const tagline = `Round ${round}`;
      const res = await ctx.api<Branding>('PATCH', '/v1/organization/branding', { brandTagline: tagline });
      expect(res.status).to.equal(200);
      const after = await getPortalBranding(testDb(), testRedis(), orgId);
      expect(after.brandTagline).to.equal(tagline);
      expect(after).to.deep.equal(res.body);
    }
  });

  it('does not let a portal read that loaded the old row before the PATCH put it back in the cache after', async () => {
    const orgId = ctx.tenant.organization.id;
    await ctx.api('PATCH', '/v1/organization/branding', { brandTagline: 'old' });
    const loaded = deferred();
    const release = deferred();
    // A portal read that has loaded the old row and is slow to store it.
    const slowDb = ((table: string) => ({
      where: (conditions: Record<string, unknown>) => ({
        first: async () => {
          const row: unknown = await testDb()(table).where(conditions).first();
          loaded.resolve();
          await release.promise;
          return row;
        },
      }),
    })) as unknown as Db;
    const slowRead = getPortalBranding(slowDb, testRedis(), orgId);
    await loaded.promise;
    await ctx.api('PATCH', '/v1/organization/branding', { brandTagline: 'new' });
    release.resolve();
    expect((await slowRead).brandTagline).to.equal('old'); // it began before the PATCH answered
    expect((await getPortalBranding(testDb(), testRedis(), orgId)).brandTagline).to.equal('new');
  });

  it('keeps each organisation’s branding and cache to itself', async () => {
    const other = await createTestTenant();
    await ctx.api('PATCH', '/v1/organization/branding', FULL);
    const theirs = await callerFor(ctx.server.baseUrl, other)<Branding>('GET', '/v1/organization/branding');
    expect(theirs.body.primaryColor).to.equal(null);
    expect((await getPortalBranding(testDb(), testRedis(), other.organization.id)).primaryColor).to.equal(null);
    expect((await getPortalBranding(testDb(), testRedis(), ctx.tenant.organization.id)).primaryColor).to.equal(
      FULL.primaryColor,
    );
  });
});
