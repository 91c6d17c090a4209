/** The reset status a sandbox tenant reads (core/sandbox/reset-status.ts), from the stored facts alone. */
import { expect } from 'chai';
import { SANDBOX_IDLE_DAYS, resetStatusOf } from '../../core/sandbox/reset-status';
import { IDLE_PERIOD_MS } from '../../workflows/sandbox-reset';

const at = (iso: string) => new Date(iso);
const now = at('2026-12-10T12:00:00.000Z');
const created = at('2026-11-01T00:00:00.000Z');

describe('the sandbox reset status', () => {
  it('idles for as long as the reset workflow does', () => {
    expect(SANDBOX_IDLE_DAYS * 86_400_000).to.equal(IDLE_PERIOD_MS);
  });

  it('is Scheduled 7 days after the last recorded use; sign-up counts as the first use', () => {
    const fresh = { createdAt: created, lastKeyUse: null, requestedAt: null, resetAt: null };
    expect(resetStatusOf(fresh, now)).to.deep.equal({
      status: 'Scheduled',
      lastUsedAt: '2026-11-01T00:00:00.000Z',
      nextResetAt: '2026-11-08T00:00:00.000Z',
      lastResetAt: null,
    });
    const used = { ...fresh, lastKeyUse: at('2026-12-09T08:30:00.000Z') };
    expect(resetStatusOf(used, now)).to.include({
      lastUsedAt: '2026-12-09T08:30:00.000Z',
      nextResetAt: '2026-12-16T08:30:00.000Z',
    });
  });

  it('is Requested from a request until a reset that started after it', () => {
    const facts = {
      createdAt: created,
      lastKeyUse: at('2026-12-10T11:59:00.000Z'),
      requestedAt: at('2026-12-10T11:59:30.000Z'),
      resetAt: at('2026-12-10T11:59:29.000Z'), // a reset already under way when the request came
    };
    expect(resetStatusOf(facts, now).status).to.equal('Requested');
    const done = { ...facts, resetAt: at('2026-12-10T11:59:31.000Z') };
    expect(resetStatusOf(done, now)).to.include({ status: 'Scheduled', lastResetAt: '2026-12-10T11:59:31.000Z' });
  });

  it('after a reset no recorded use follows, counts the request asking as the use that arms the next', () => {
    const idleReset = {
      createdAt: created,
      lastKeyUse: at('2026-11-20T10:00:00.000Z'),
      requestedAt: null,
      resetAt: at('2026-11-27T10:00:05.000Z'),
    };
    expect(resetStatusOf(idleReset, now)).to.deep.equal({
      status: 'Scheduled',
      lastUsedAt: now.toISOString(),
      nextResetAt: '2026-12-17T12:00:00.000Z',
      lastResetAt: '2026-11-27T10:00:05.000Z',
    });
  });
});
