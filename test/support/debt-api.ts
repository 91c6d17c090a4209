/** A small JSON client for any /v1 route (a caller per tenant) and the problem-document assertion every suite uses. */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { TestTenant } from './tenants';

export interface ApiAnswer<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export type Caller = <T = Record<string, unknown>>(
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<ApiAnswer<T>>;

/** Calls the API as `tenant`; `body` may be a string to send raw JSON text (e.g. numbers JSON.stringify would alter). */
export function callerFor(baseUrl: string, tenant: Pick<TestTenant, 'headers'>): Caller {
  return async <T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const init: RequestInit = { method, headers: { ...tenant.headers, ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] = 'application/json';
    }
    const res = await fetch(`${baseUrl}${path}`, init);
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, body: (text ? JSON.parse(text) : undefined) as T };
  };
}

/** A debt as the API answers it; the fields the tests read are typed. */
export type Debt = Record<string, unknown> & { id: string; debtorId: string; updatedAt: string };

/** A valid inline-debtor body; each call gets fresh references so tests never collide. */
export function inlineDebtBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const ref = randomUUID().slice(0, 8);
  return {
    debtorReferenceId: `DBR-${ref}`,
    debtorFirstName: 'Ava',
    debtorLastName: 'Harris',
    debtorEmail: `ava.${ref}@example.com`,
    originalPrincipal: 1250.5,
    externalAccountId: `ACCT-${ref}`,
    ...overrides,
  };
}

/** Raises a debt with a valid inline debtor (`overrides` change its body) and returns it, asserting 201. */
export async function raiseDebt(api: Caller, overrides: Record<string, unknown> = {}): Promise<Debt> {
  const res = await api<Debt>('POST', '/v1/debts', inlineDebtBody(overrides));
  expect(res.status, res.text).to.equal(201);
  return res.body;
}

/** Asserts a problem document with this code and status, and returns it. */
export function expectProblem(answer: ApiAnswer, status: number, code: string): Record<string, unknown> {
  expect(answer.status, answer.text).to.equal(status);
  expect(answer.headers.get('content-type')).to.equal('application/problem+json');
  expect(answer.body.title, answer.text).to.equal(code);
  return answer.body;
}
