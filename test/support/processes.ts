/** How tests start and clean up the project's processes, each in its own process group (`detached: true`). */
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * The command that runs an entry point as one node process: a `.ts` source through tsx's loader (`node --import tsx`),
 * a compiled `dist/….js` with plain node, as production runs it. Not the `tsx` command: it runs the entry in a child
 * and relays a signal only if that child reports it back within 30 ms, otherwise SIGKILLs it and exits 143, so a
 * loaded machine turned a test's clean SIGTERM shutdown into a kill.
 */
export function nodeCommand(entry: string, nodeArgs: string[] = []): [string, string[]] {
  const loader = entry.endsWith('.ts') ? ['--import', 'tsx'] : [];
  return [process.execPath, [...nodeArgs, ...loader, entry]];
}

/** SIGKILLs the whole group, so that whatever the process started dies too; one that already ended is left alone. */
export function killGroup(proc: { child: ChildProcess } | undefined): void {
  if (proc?.child.pid === undefined || proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  try {
    process.kill(-proc.child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Whether a process of this pid still exists (signal 0 checks without signalling). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The nice value (CPU priority) of each thread of process `pid`: field 19 of /proc/<pid>/task/<tid>/stat (Linux). A
 * thread that ended between the listing and the read is skipped.
 */
export function threadNiceValues(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      return [];
    }
    return [Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])];
  });
}
