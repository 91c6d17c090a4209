/**
 * Where a scenario's CPU goes, by process: user + system time from /proc (Linux) over a measured span, divided by
 * the items it served (requests, deliveries). On a machine whose cores the load generator, the database, Redis and
 * Temporal share with the process under test, a ratio alone does not say who took the time; this does.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** The processes to account for, by name; each lists its pids when asked (PostgreSQL's backends come and go). */
export type ProcessSet = Record<string, () => number[]>;

/** USER_HZ: the unit of /proc's CPU times on Linux. */
const CLOCK_TICKS_PER_SECOND = 100;

/** CPU time a process has used so far (user + system), in µs; undefined once it has exited. */
function cpuUs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** The pids whose command name (`comm`) starts with `name`: e.g. every PostgreSQL process, the Redis server. */
export function pidsNamed(name: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith(name);
      } catch {
        return false; // exited meanwhile
      }
    })
    .map(Number);
}

/** The services every HTTP scenario shares, and the bench process itself (the load generator). */
export function sharedProcesses(): ProcessSet {
  return {
    postgres: () => pidsNamed('postgres'),
    redis: () => pidsNamed('redis-server'),
    'load generator': () => [process.pid],
  };
}

/**
 * Runs `work` and returns, per process name, the CPU µs it used meanwhile divided by `items(result)`. A process that
 * started during the span counts from zero; one that exited during it is not counted (a few backends, at most).
 */
export async function cpuPerItem<T>(
  processes: ProcessSet,
  work: () => Promise<T>,
  items: (result: T) => number,
): Promise<{ result: T; perItemUs: Record<string, number> }> {
  const sample = () =>
    Object.fromEntries(
      Object.entries(processes).map(([name, pids]) => [name, new Map(pids().map((pid) => [pid, cpuUs(pid)]))]),
    );
  const before = sample();
  const result = await work();
  const after = sample();
  const count = Math.max(1, items(result));
  const perItemUs = Object.fromEntries(
    Object.entries(after).map(([name, ends]) => {
      let used = 0;
      for (const [pid, end] of ends) if (end !== undefined) used += end - (before[name]?.get(pid) ?? 0);
      return [name, used / count];
    }),
  );
  return { result, perItemUs };
}
