import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { useApiSuite } from '../support/api-suite';
import { expectProblem } from '../support/debt-api';

type Debtor = Record<string, unknown> & { id: string; updatedAt: string };

describe('Debtors: POST, GET, list and PATCH /v1/debtors', () => {
  const ctx = useApiSuite();

  async function create(body: Record<string, unknown>): Promise<Debtor> {
    const res = await ctx.api<Debtor>('POST', '/v1/debtors', { firstName: 'Carla', lastName: 'Tan', ...body });
    expect(res.status, res.text).to.equal(201);
    return res.body;
  }

  it('creates a debtor (201, Location) and reads it back', async () => {
    const res = await ctx.api<Debtor>('POST', '/v1/debtors', {
      referenceId: 'DBR-003',
      firstName: 'Carla',
      lastName: 'Tan',
      email: 'carla.tan@example.com',
    });
    expect(res.status).to.equal(201);
    expect(res.headers.get('location')).to.equal(`/v1/debtors/${res.body.id}`);
    expect(res.body).to.include({
      referenceId: 'DBR-003',
      firstName: 'Carla',
      lastName: 'Tan',
      email: 'carla.tan@example.com',
      phone: null,
    });
    expect(Object.keys(res.body).sort()).to.deep.equal(
      [
        'id',
        'referenceId',
        'firstName',
        'lastName',
        'email',
        'phone',
        'metadata',
        'verification',
        'createdAt',
        'updatedAt',
      ].sort(),
    );
    expect(res.body.verification).to.deep.equal({ dateOfBirth: false, postcode: false });
    expect((await ctx.api('GET', `/v1/debtors/${res.body.id}`)).body).to.deep.equal(res.body);
  });

  it('refuses a debtor with neither email nor phone, a taken referenceId, bad formats and unknown fields', async () => {
    await create({ referenceId: 'DBR-TAKEN', phone: '+61400000000' });
    const noContact = await ctx.api('POST', '/v1/debtors', { referenceId: 'X', firstName: 'A', lastName: 'B' });
    expect(expectProblem(noContact, 400, 'invalid_request').errors).to.deep.equal([
      { path: 'body.email', message: 'email or phone is required' },
    ]);
    const taken = await ctx.api('POST', '/v1/debtors', {
      referenceId: 'DBR-TAKEN',
      firstName: 'A',
      lastName: 'B',
      phone: '+61400000001',
    });
    expect(expectProblem(taken, 400, 'invalid_request').errors).to.deep.equal([
      { path: 'body.referenceId', message: 'is already used by another debtor of your organisation' },
    ]);
    for (const bad of [{ email: 'not-an-email' }, { phone: '0412345678' }, { nickname: 'x', email: 'a@b.co' }]) {
      const res = await ctx.api('POST', '/v1/debtors', { referenceId: 'Y', firstName: 'A', lastName: 'B', ...bad });
      const field = Object.keys(bad)[0]!;
      const paths = (expectProblem(res, 400, 'invalid_request').errors as { path: string }[]).map((e) => e.path);
      expect(paths).to.include(`body.${field}`);
    }
    expectProblem(await ctx.api('POST', '/v1/debtors', { email: 'a@b.co' }), 400, 'invalid_request');
  });

  it('lists debtors newest first, filtered by referenceId and by email case-insensitively', async () => {
    const a = await create({ referenceId: 'DBR-A', email: 'Dan.Murphy@Example.com' });
    const b = await create({ referenceId: 'DBR-B', phone: '+61400000002' });
    const all = await ctx.api<{ data: Debtor[]; nextCursor: string | null }>('GET', '/v1/debtors?limit=1');
    expect(all.body.data.map((d) => d.id)).to.deep.equal([b.id]);
    const next = await ctx.api<{ data: Debtor[]; nextCursor: null }>(
      'GET',
      `/v1/debtors?limit=1&cursor=${all.body.nextCursor}`,
    );
    expect(next.body).to.deep.equal({ data: [a], nextCursor: null });
    const byRef = await ctx.api<{ data: Debtor[] }>('GET', '/v1/debtors?referenceId=DBR-B');
    expect(byRef.body.data.map((d) => d.id)).to.deep.equal([b.id]);
    const byEmail = await ctx.api<{ data: Debtor[] }>('GET', '/v1/debtors?email=dan.murphy%40example.com');
    expect(byEmail.body.data.map((d) => d.id)).to.deep.equal([a.id]);
    const none = await ctx.api<{ data: Debtor[] }>('GET', '/v1/debtors?referenceId=DBR-NONE');
    expect(none.body).to.deep.equal({ data: [], nextCursor: null });
  });

  it('patches only the fields sent; null leaves a field alone and "" clears email or phone', async () => {
    const debtor = await create({ referenceId: 'DBR-P', email: 'ella@example.com', phone: '+61400000003' });
    const res = await ctx.api<Debtor>('PATCH', `/v1/debtors/${debtor.id}`, {
      firstName: 'Ella',
      lastName: null,
      email: '',
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ firstName: 'Ella', lastName: 'Tan', email: null, phone: '+61400000003' });
    expect(res.body.updatedAt > debtor.updatedAt).to.equal(true);
    const unchanged = await ctx.api<Debtor>('PATCH', `/v1/debtors/${debtor.id}`, { firstName: 'Ella' });
    expect(unchanged.body.updatedAt).to.equal(res.body.updatedAt);
    const lastContact = await ctx.api('PATCH', `/v1/debtors/${debtor.id}`, { phone: '' });
    expectProblem(lastContact, 400, 'invalid_request');
  });

  it('refuses to give a debtor a referenceId another debtor holds', async () => {
    await create({ referenceId: 'DBR-HELD', phone: '+61400000004' });
    const other = await create({ referenceId: 'DBR-FREE', phone: '+61400000005' });
    const res = await ctx.api('PATCH', `/v1/debtors/${other.id}`, { referenceId: 'DBR-HELD' });
    expectProblem(res, 400, 'invalid_request');
    const renamed = await ctx.api('PATCH', `/v1/debtors/${other.id}`, { referenceId: 'DBR-NEW' });
    expect(renamed.body.referenceId).to.equal('DBR-NEW');
  });

  it('answers 404 not_found for unknown or malformed ids on GET and PATCH', async () => {
    for (const id of [randomUUID(), 'nope']) {
      expectProblem(await ctx.api('GET', `/v1/debtors/${id}`), 404, 'not_found');
      expectProblem(await ctx.api('PATCH', `/v1/debtors/${id}`, { firstName: 'X' }), 404, 'not_found');
    }
  });
});
