/**
 * The Temporal SDK's own worker metrics (task slots, poll latency, schedule-to-start, sticky cache, ...) come from its
 * native runtime, which can only export them on an HTTP port of its own. So that an operator scrapes one port per
 * process, the runtime's exporter listens on a free loopback port that nothing outside the process sees, and the
 * process's `/metrics` fetches it on each scrape and serves both texts together (metric names do not overlap: ours
 * are `client_api_*`, Node's `process_*`/`nodejs_*`, the SDK's `temporal_*`).
 */
import { createServer } from 'node:net';

/** The SDK runtime's telemetry exporter: seconds and `_total` suffixes, like every other series we serve. */
export function sdkPrometheusExporter(port: number) {
  return {
    prometheus: {
      bindAddress: `127.0.0.1:${port}`,
      countersTotalSuffix: true,
      unitSuffix: true,
      useSecondsForDurations: true,
    },
  };
}

/** A loopback port free right now, for the SDK's exporter (which cannot report the port it bound to). */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

const FETCH_TIMEOUT_MS = 2_000;

/** The SDK exporter's text, or a comment saying it did not answer (our own series are still served). */
export async function fetchSdkMetrics(port: number): Promise<string> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
    if (!res.ok) return `# temporal sdk metrics: HTTP ${res.status}\n`;
    return await res.text();
  } catch (err) {
    return `# temporal sdk metrics unavailable: ${(err as Error).message.replace(/\n/g, ' ')}\n`;
  }
}
