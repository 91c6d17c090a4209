/** Sandbox tenants for tests: sign-up through the real route, and a recording stand-in for the reset workflows. */
import { expect } from 'chai';
import type { SandboxResets } from '../../core/sandbox/resets';
import { workflowIds } from '../../core/temporal/names';
import { callerFor, type Caller } from './debt-api';
import { testRedis } from './resources';

export interface SignedUpTenant {
  organizationId: string;
  key: string;
  api: Caller;
  body: Record<string, unknown>;
}

/** Signs up through `POST /sandbox/signup` and returns a caller with the new key (asserting 201). */
export async function signUp(baseUrl: string, body: unknown = {}): Promise<SignedUpTenant> {
  const res = await fetch(`${baseUrl}/sandbox/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  expect(res.status, text).to.equal(201);
  const parsed = JSON.parse(text) as { organization: { id: string }; apiKey: { key: string } };
  const headers = { authorization: `Bearer ${parsed.apiKey.key}` };
  return {
    organizationId: parsed.organization.id,
    key: parsed.apiKey.key,
    api: callerFor(baseUrl, { headers }),
    body: parsed,
  };
}

/** Forgets the sign-ups counted for the test client's address (every test request comes from 127.0.0.1). */
export async function forgetSignups(): Promise<void> {
  await testRedis().del('sandbox:signup:127.0.0.1', 'sandbox:signup:::ffff:127.0.0.1');
}

/** A SandboxResets that records what it was asked. */
export function recordingResets(): SandboxResets & { calls: { kind: string; organizationId: string }[] } {
  const calls: { kind: string; organizationId: string }[] = [];
  const record = (kind: string) => async (organizationId: string) => {
    calls.push({ kind, organizationId });
    return workflowIds.sandboxReset(organizationId);
  };
  return {
    calls,
    start: record('start'),
    recordUse: async (organizationId) => void (await record('recordUse')(organizationId)),
    resetNow: record('resetNow'),
  };
}
