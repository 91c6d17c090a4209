/**
 * A debtor's verification data (issue 37, item 1): `dateOfBirth` and `postcode`, accepted on POST and PATCH
 * /v1/debtors and on an inline debtor of POST /v1/debts, refused with a 400 problem naming the field (and nothing
 * written) when not a real past date after 1900 or not a plausible postcode, and never sent back: not by GET, not in
 * lists, not in events (what webhooks carry). The API says only whether each is on file.
 */
import { expect } from 'chai';
import { useApiSuite } from '../support/api-suite';
import { expectProblem } from '../support/debt-api';
import { testDb } from '../support/resources';

type Debtor = Record<string, unknown> & { id: string; verification: { dateOfBirth: boolean; postcode: boolean } };

const DOB = '1985-04-12';
const POSTCODE = 'SW1A 9ZZ';

/** Neither value, in any spelling an answer could carry it, nor any field holding a value. */
function expectNoSecrets(text: string): void {
  for (const secret of [DOB, POSTCODE, 'SW1A', '9ZZ']) expect(text, `leaks ${secret}`).not.to.contain(secret);
  expect(text).not.to.match(/"(debtorD|d)ateOfBirth":"|"(debtorP|p)ostcode":"/);
}

describe('Debtor verification data: accepted, validated, never returned', () => {
  const ctx = useApiSuite();
  const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  const base = { firstName: 'Ava', lastName: 'Harris', email: 'ava@example.com' };

  it('POST /v1/debtors takes both; GET, the list and the answer say only that they are on file', async () => {
    const res = await ctx.api<Debtor>('POST', '/v1/debtors', {
      ...base,
      referenceId: 'V-1',
      dateOfBirth: DOB,
      postcode: `  ${POSTCODE} `,
    });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.verification).to.deep.equal({ dateOfBirth: true, postcode: true });
    expect(res.body).not.to.have.any.keys('dateOfBirth', 'postcode');
    expectNoSecrets(res.text);
    const got = await ctx.api<Debtor>('GET', `/v1/debtors/${res.body.id}`);
    expect(got.body).to.deep.equal(res.body);
    expectNoSecrets(got.text);
    const list = await ctx.api('GET', '/v1/debtors');
    expect(list.text).to.contain(res.body.id);
    expectNoSecrets(list.text);
    // Stored as given, trimmed: the portal compares it ignoring case and spaces.
    const row = await testDb()('debtors')
      .where({ id: res.body.id })
      .first(testDb().raw(`to_char(date_of_birth, 'YYYY-MM-DD') as dob`), 'postcode');
    expect(row).to.deep.equal({ dob: DOB, postcode: POSTCODE });

    const none = await ctx.api<Debtor>('POST', '/v1/debtors', { ...base, referenceId: 'V-2', postcode: '' });
    expect(none.body.verification).to.deep.equal({ dateOfBirth: false, postcode: false });
  });

  it('refuses a date that is not a real past date after 1900, or a bad postcode: 400 naming the field, nothing written', async () => {
    const bad: [Record<string, string>, string][] = [
      [{ dateOfBirth: '1985-02-30' }, 'body.dateOfBirth'],
      [{ dateOfBirth: '1985-2-3' }, 'body.dateOfBirth'],
      [{ dateOfBirth: '12/04/1985' }, 'body.dateOfBirth'],
      [{ dateOfBirth: tomorrow() }, 'body.dateOfBirth'],
      [{ dateOfBirth: '1899-12-31' }, 'body.dateOfBirth'],
      [{ dateOfBirth: '0000-01-01' }, 'body.dateOfBirth'],
      [{ postcode: 'A' }, 'body.postcode'],
      [{ postcode: '   ' }, 'body.postcode'],
      [{ postcode: '12345678901' }, 'body.postcode'],
      [{ postcode: 'SW1A<1AA>' }, 'body.postcode'],
    ];
    for (const [fields, path] of bad) {
      const res = await ctx.api('POST', '/v1/debtors', { ...base, referenceId: 'V-BAD', ...fields });
      const problem = expectProblem(res, 400, 'invalid_request');
      expect(
        (problem.errors as { path: string }[]).map((e) => e.path),
        res.text,
      ).to.deep.equal([path]);
    }
    const both = await ctx.api('POST', '/v1/debtors', {
      ...base,
      referenceId: 'V-BAD',
      dateOfBirth: '2001-13-01',
      postcode: '!',
    });
    const paths = (expectProblem(both, 400, 'invalid_request').errors as { path: string }[]).map((e) => e.path);
    expect(paths).to.deep.equal(['body.dateOfBirth', 'body.postcode']);
    expect((await ctx.api<{ data: unknown[] }>('GET', '/v1/debtors?referenceId=V-BAD')).body.data).to.deep.equal([]);
  });

  it('PATCH sets, keeps (null), clears ("") and refuses them; a refused PATCH changes nothing', async () => {
    const { body: debtor } = await ctx.api<Debtor>('POST', '/v1/debtors', { ...base, referenceId: 'V-3' });
    const path = `/v1/debtors/${debtor.id}`;
    const set = await ctx.api<Debtor>('PATCH', path, { dateOfBirth: DOB, postcode: POSTCODE });
    expect(set.status, set.text).to.equal(200);
    expect(set.body.verification).to.deep.equal({ dateOfBirth: true, postcode: true });
    expectNoSecrets(set.text);
    // The same values again are no change: nothing is written.
    const same = await ctx.api<Debtor>('PATCH', path, { dateOfBirth: DOB, postcode: POSTCODE });
    expect(same.body.updatedAt).to.equal(set.body.updatedAt);

    const refused = await ctx.api('PATCH', path, { firstName: 'Changed', dateOfBirth: '1985-02-29' });
    expect((expectProblem(refused, 400, 'invalid_request').errors as { path: string }[])[0]!.path).to.equal(
      'body.dateOfBirth',
    );
    const after = await ctx.api<Debtor>('GET', path);
    expect(after.body.firstName).to.equal('Ava');
    expect(after.body.updatedAt).to.equal(set.body.updatedAt);

    const kept = await ctx.api<Debtor>('PATCH', path, { dateOfBirth: null, postcode: null, firstName: 'Eva' });
    expect(kept.body.verification).to.deep.equal({ dateOfBirth: true, postcode: true });
    const cleared = await ctx.api<Debtor>('PATCH', path, { postcode: '' });
    expect(cleared.body.verification).to.deep.equal({ dateOfBirth: true, postcode: false });
  });

  it('an inline debtor of POST /v1/debts takes them; a bad one refuses the debt and its debtor; events never carry them', async () => {
    const debt = {
      debtorReferenceId: 'V-4',
      debtorFirstName: 'Ava',
      debtorLastName: 'Harris',
      debtorEmail: 'ava@example.com',
      originalPrincipal: 100,
      externalAccountId: 'ACCT-V-4',
    };
    const refused = await ctx.api('POST', '/v1/debts', { ...debt, debtorDateOfBirth: '1985-04-31' });
    expect((expectProblem(refused, 400, 'invalid_request').errors as { path: string }[])[0]!.path).to.equal(
      'body.debtorDateOfBirth',
    );
    const badPostcode = await ctx.api('POST', '/v1/debts', { ...debt, debtorPostcode: 'x' });
    expect((expectProblem(badPostcode, 400, 'invalid_request').errors as { path: string }[])[0]!.path).to.equal(
      'body.debtorPostcode',
    );
    expect((await ctx.api<{ data: unknown[] }>('GET', '/v1/debtors?referenceId=V-4')).body.data).to.deep.equal([]);
    expect((await ctx.api<{ data: unknown[] }>('GET', '/v1/debts')).body.data).to.deep.equal([]);

    const withDebtorId = await ctx.api('POST', '/v1/debts', {
      debtorId: '01936f1e-7b10-7aa2-8c11-5d2e9f0a1b23',
      debtorDateOfBirth: DOB,
      originalPrincipal: 100,
      externalAccountId: 'ACCT-V-5',
    });
    expectProblem(withDebtorId, 400, 'invalid_request');

    const created = await ctx.api<{ id: string; debtorId: string }>('POST', '/v1/debts', {
      ...debt,
      debtorDateOfBirth: DOB,
      debtorPostcode: POSTCODE,
    });
    expect(created.status, created.text).to.equal(201);
    expectNoSecrets(created.text);
    const debtor = await ctx.api<Debtor>('GET', `/v1/debtors/${created.body.debtorId}`);
    expect(debtor.body.verification).to.deep.equal({ dateOfBirth: true, postcode: true });
    await ctx.api('PATCH', `/v1/debts/${created.body.id}`, { clientReference: 'INV-9' });

    // Webhooks send the events' data as it is: neither the list of events nor their stored data holds a value.
    const events = await ctx.api<{ data: { type: string }[] }>('GET', '/v1/events');
    expect(events.body.data.map((e) => e.type)).to.include.members(['debt.created', 'debt.updated']);
    expectNoSecrets(events.text);
    const stored = await testDb()('events')
      .where({ organization_id: ctx.tenant.organization.id })
      .select<{ data: string }[]>(testDb().raw('data::text as data'));
    expect(stored).to.have.length.greaterThan(1);
    for (const row of stored) expectNoSecrets(row.data);
    expectNoSecrets((await ctx.api('GET', '/v1/debts')).text);
  });
});
