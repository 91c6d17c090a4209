/**
 * Routes that exist only in tests, to exercise the request machinery (idempotency, errors, deprecation) with a
 * countable side effect: each successful call writes one row to the real `events` table.
 */
import { ApiError } from '../../core/platform/errors';
import { recordEvent } from '../../core/events/outbox';
import { defineApiRoute, type ApiMutationInput, type RouteDefinition } from '../../api/http/route-definition';
import { createGate } from './wait';

/** Notes whose after-commit task ran, in order: proves such tasks run only after a successful operation. */
export const afterCommitRuns: string[] = [];

export interface FixtureBody {
  note: string;
  outcome?: 'ok' | 'business_error' | 'crash';
}

const heldNotes = new Map<string, { entered: () => void; released: Promise<void> }>();

/**
 * Holds the next call with this note inside its handler (its transaction open) until `release`: the test knows the
 * call is under way when `entered` resolves, instead of guessing how long to wait.
 */
export function holdNextCall(note: string): { entered: Promise<void>; release: () => void } {
  const entered = createGate();
  const released = createGate();
  heldNotes.set(note, { entered: entered.open, released: released.opened });
  return { entered: entered.opened, release: released.open };
}

export function fixtureRoutes(): RouteDefinition[] {
  return [
    noteRoute('/v1/test-fixtures/notes', 'createFixtureNote'),
    noteRoute('/v1/test-fixtures/other-notes', 'createOtherFixtureNote'),
    defineApiRoute({
      method: 'get',
      path: '/v1/test-fixtures/old',
      operationId: 'getFixtureOld',
      summary: 'Test fixture: a deprecated route',
      tags: ['Test fixtures'],
      scope: null,
      deprecated: { since: '2026-06-01', sunset: '2027-01-01', link: 'https://example.test/docs/migrate-old' },
      responses: { 200: { description: 'Still works.', schema: { type: 'object' } } },
      handler: async () => ({ status: 200, body: { ok: true } }),
    }),
  ];
}

function noteRoute(path: string, operationId: string): RouteDefinition {
  return defineApiRoute<ApiMutationInput<FixtureBody>>({
    method: 'post',
    path,
    operationId,
    summary: 'Test fixture: records one event per call',
    tags: ['Test fixtures'],
    scope: 'debts:write',
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['note'],
      properties: {
        note: { type: 'string', minLength: 1 },
        outcome: { type: 'string', enum: ['ok', 'business_error', 'crash'] },
      },
    },
    errors: ['invalid_state'],
    responses: { 201: { description: 'Recorded.', schema: { type: 'object' } } },
    handler: async (_ctx, { body, trx, auth, afterCommit }) => {
      const event = await recordEvent(trx, auth.organizationId, 'test.ping', { note: body.note });
      afterCommit(async () => void afterCommitRuns.push(body.note));
      const hold = heldNotes.get(body.note);
      if (hold) {
        heldNotes.delete(body.note);
        hold.entered();
        await hold.released;
      }
      if (body.outcome === 'business_error') throw new ApiError('invalid_state', 'Fixture refused the note.');
      if (body.outcome === 'crash') throw new Error('fixture crash with secret internals');
      return {
        status: 201,
        body: { eventId: event.id, note: body.note },
        headers: { Location: `/v1/events/${event.id}` },
      };
    },
  });
}
