/**
 * The debtor portal's links and the debtor's email opt-out: a link's token is stored only as
 * its hash, opens its own debt until revoked, and a new link revokes the old one; opting out is kept per debtor.
 */
import { expect } from 'chai';
import { createOrganization } from '../../core/access/organizations';
import { createDebt } from '../../core/debts/debt-creation';
import { getContactPreferences, setEmailOptOut } from '../../core/notifications/contact-preferences';
import {
  hashPortalToken,
  issuePortalLink,
  portalLinkUrl,
  resolvePortalLink,
  revokePortalLink,
} from '../../core/portal/links';
import { inlineDebtBody } from '../support/debt-api';
import { testDb } from '../support/resources';

async function organisationWithDebt() {
  const organization = await createOrganization(testDb(), { name: 'Portal Links Org', mode: 'production' });
  const debt = await testDb().transaction((trx) => createDebt(trx, organization.id, inlineDebtBody()));
  return { organizationId: organization.id, debtId: debt.id, debtorId: debt.debtorId };
}

describe('portal links', () => {
  it('stores only the hash of a link, which opens its own debt', async () => {
    const { organizationId, debtId } = await organisationWithDebt();
    const { linkId, token } = await issuePortalLink(testDb(), { organizationId, debtId });

    expect(token).to.match(/^[A-Za-z0-9_-]{43}$/);
    const rows: { token_hash: string }[] = await testDb()('portal_links')
      .where({ debt_id: debtId })
      .select('token_hash');
    expect(rows).to.have.length(1);
    expect(JSON.stringify(rows)).not.to.include(token);
    expect(rows[0]?.token_hash).to.equal(hashPortalToken(token));
    expect(await resolvePortalLink(testDb(), token)).to.deep.equal({ linkId, organizationId, debtId });
    expect(portalLinkUrl('https://pay.example.com', token)).to.equal(`https://pay.example.com/portal/l/${token}`);
  });

  it('refuses a malformed, unknown, replaced or revoked token alike', async () => {
    const { organizationId, debtId } = await organisationWithDebt();
    const first = await issuePortalLink(testDb(), { organizationId, debtId });
    const second = await issuePortalLink(testDb(), { organizationId, debtId });

    expect(await resolvePortalLink(testDb(), first.token)).to.equal(null);
    expect(await resolvePortalLink(testDb(), 'not a token')).to.equal(null);
    expect(
      await resolvePortalLink(
        testDb(),
        second.token.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')),
      ),
    ).to.equal(null);
    expect((await resolvePortalLink(testDb(), second.token))?.linkId).to.equal(second.linkId);

    expect(await revokePortalLink(testDb(), { organizationId, debtId })).to.equal(true);
    expect(await revokePortalLink(testDb(), { organizationId, debtId })).to.equal(false);
    expect(await resolvePortalLink(testDb(), second.token)).to.equal(null);
  });

  it('does not let one organisation revoke another organisation’s link', async () => {
    const mine = await organisationWithDebt();
    const theirs = await organisationWithDebt();
    const { token } = await issuePortalLink(testDb(), mine);

    expect(await revokePortalLink(testDb(), { organizationId: theirs.organizationId, debtId: mine.debtId })).to.equal(
      false,
    );
    expect(await resolvePortalLink(testDb(), token)).not.to.equal(null);
  });
});

describe('debtor contact preferences', () => {
  it('keeps a debtor’s email opt-out, and opting back in clears it', async () => {
    const { organizationId, debtorId } = await organisationWithDebt();
    expect(await getContactPreferences(testDb(), organizationId, debtorId)).to.deep.equal({
      emailOptedOut: false,
      emailOptedOutAt: null,
    });

    const at = new Date('2026-11-25T10:00:00.000Z');
    await setEmailOptOut(testDb(), { organizationId, debtorId, optedOut: true, now: at });
    expect(await getContactPreferences(testDb(), organizationId, debtorId)).to.deep.equal({
      emailOptedOut: true,
      emailOptedOutAt: at,
    });
    expect(
      (await getContactPreferences(testDb(), 'f0000000-0000-7000-8000-000000000000', debtorId)).emailOptedOut,
    ).to.equal(false);

    await setEmailOptOut(testDb(), { organizationId, debtorId, optedOut: false });
    expect((await getContactPreferences(testDb(), organizationId, debtorId)).emailOptedOut).to.equal(false);
  });
});
