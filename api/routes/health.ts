/**
 * GET /healthz: the host's mode, and whether PostgreSQL, Redis and Temporal answer. No key needed.
 * Each dependency's answer is reused for PROBE_CACHE_MS and concurrent requests share one probe in flight, so a
 * flood of health checks costs each dependency at most one probe a second.
 */
import { ApiError } from '../../core/platform/errors';
import type { Mode } from '../../core/platform/config';
import { defineRoute, type RouteDefinition } from '../http/route-definition';

export type DependencyCheck = () => Promise<void>;

const CHECK_TIMEOUT_MS = 2_000;
export const PROBE_CACHE_MS = 1_000;

export function healthRoutes(options: { mode: Mode; checks: Record<string, DependencyCheck> }): RouteDefinition[] {
  const probes = Object.fromEntries(Object.entries(options.checks).map(([name, check]) => [name, cachedProbe(check)]));
  return [
    defineRoute({
      method: 'get',
      path: '/healthz',
      operationId: 'getHealth',
      summary: 'Health of this host',
      description:
        'Answers 200 when the database, the cache and the workflow engine answer; 503 naming the failing one otherwise.',
      tags: ['Health'],
      auth: { kind: 'none' },
      errors: ['service_unavailable'],
      responses: {
        200: {
          description: 'Every dependency answers.',
          schema: {
            type: 'object',
            required: ['ok', 'mode'],
            properties: {
              ok: { type: 'boolean', const: true },
              mode: { type: 'string', enum: ['sandbox', 'production'] },
            },
          },
          example: { ok: true, mode: 'production' },
        },
      },
      handler: async () => {
        const failing = await failingDependencies(probes);
        if (failing.length > 0) {
          throw new ApiError('service_unavailable', `Not answering: ${failing.join(', ')}.`, { failing });
        }
        return { status: 200, body: { ok: true, mode: options.mode }, headers: { 'Cache-Control': 'no-store' } };
      },
    }),
  ];
}

type Probe = () => Promise<boolean>;

/** Whether `check` answers in time, asked at most once per PROBE_CACHE_MS; callers meanwhile share the answer. */
function cachedProbe(check: DependencyCheck): Probe {
  let last: { answer: Promise<boolean>; at: number } | undefined;
  return () => {
    const now = Date.now();
    if (!last || now - last.at >= PROBE_CACHE_MS) last = { answer: answersInTime(check), at: now };
    return last.answer;
  };
}

async function failingDependencies(probes: Record<string, Probe>): Promise<string[]> {
  const results = await Promise.all(
    Object.entries(probes).map(async ([name, probe]) => ((await probe()) ? null : name)),
  );
  return results.filter((name): name is string => name !== null);
}

async function answersInTime(check: DependencyCheck): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([check().then(() => true as const), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
