/**
 * Temporal client for the API processes (STYLE.md §9). Built explicitly by the entry point, never at import time.
 * The connection is lazy so an API whose Temporal server is down still starts and reports it on /healthz.
 */
import { Client, Connection } from '@temporalio/client';

/** How long /healthz waits for Temporal before calling it down. */
export const TEMPORAL_HEALTH_TIMEOUT_MS = 2_000;

export function createTemporalClient(address: string, namespace: string): Client {
  return new Client({ connection: Connection.lazy({ address }), namespace });
}

/** Probes still running on each client's connection, so closing it can wait for them (see closeTemporalClient). */
const probesInFlight = new WeakMap<Client, Set<Promise<unknown>>>();

/**
 * Health probe: the server answers and the client's namespace exists (a server without our namespace cannot start
 * any of our workflows). Rejects within `timeoutMs`: the gRPC deadline alone can overshoot by a retry backoff.
 */
export async function checkTemporal(client: Client, timeoutMs = TEMPORAL_HEALTH_TIMEOUT_MS): Promise<void> {
  const { namespace } = client.options;
  const call = client.connection.withDeadline(Date.now() + timeoutMs, () =>
    client.workflowService.describeNamespace({ namespace }),
  );
  const probes = probesInFlight.get(client) ?? new Set();
  probesInFlight.set(client, probes.add(call));
  const settled = () => probes.delete(call);
  call.then(settled, settled);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Temporal did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([call, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Close the client's connection once its probes have settled: a timed-out probe may still have a gRPC retry
 * scheduled (at most one backoff past its deadline), and a retry on a closed channel throws out of a timer.
 */
export async function closeTemporalClient(client: Client): Promise<void> {
  await Promise.allSettled([...(probesInFlight.get(client) ?? [])]);
  await client.connection.close();
}
