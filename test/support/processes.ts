/** Clean-up of the worker processes that tests spawn, each in its own process group (`detached: true`). */
import type { ChildProcess } from 'node:child_process';

/** SIGKILLs the whole group, so that tsx's own child dies too; a process that already ended is left alone. */
export function killGroup(proc: { child: ChildProcess } | undefined): void {
  if (proc?.child.pid === undefined || proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  try {
    process.kill(-proc.child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
