/**
 * `timeout npm start` (or a supervisor) ends the shell in front of the stack's runner, not the runner: the runner
 * must notice it was orphaned and stop what it started (scripts/stop-when-orphaned.ts, used by scripts/dev.ts).
 * Real processes: a shell that starts a runner which starts a long-lived child, the shell killed with SIGKILL.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import readline from 'node:readline';
import { expect } from 'chai';
import { ROOT } from '../bench/support';
import { waitFor } from '../support/wait';

/** The runner: starts a "stack" (a detached sleep, as dev.ts detaches its apps), stops it when orphaned. */
const RUNNER = `
const { spawn } = require('node:child_process');
const { stopWhenOrphaned } = require('./scripts/stop-when-orphaned');
const stack = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
stopWhenOrphaned(() => { stack.kill('SIGTERM'); process.exit(0); }, 50);
setInterval(() => undefined, 1000); // runs until stopped, like the stack's runner
console.log(JSON.stringify({ runner: process.pid, stack: stack.pid }));
`;

/** Running (a zombie waiting for its parent to reap it has stopped: it counts as gone). */
const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
};

describe('a runner whose parent is gone stops what it started', function () {
  this.timeout(30_000);
  const started: number[] = [];
  after(() => {
    for (const pid of started) if (alive(pid)) process.kill(pid, 'SIGKILL');
  });

  it('stops its stack and exits once the shell that started it is killed', async () => {
    // `; true` keeps the shell in front of the runner, as `sh -c` is in front of `npm start`'s runner.
    const shell = spawn('sh', ['-c', `"${process.execPath}" --import tsx -e "$RUNNER"; true`], {
      cwd: ROOT,
      env: { ...process.env, RUNNER },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const line = await new Promise<string>((resolve, reject) => {
      readline.createInterface({ input: shell.stdout }).once('line', resolve);
      shell.once('exit', (code) => reject(new Error(`the shell exited (${code}) before the runner started`)));
    });
    const pids = JSON.parse(line) as { runner: number; stack: number };
    started.push(pids.runner, pids.stack);
    expect([alive(pids.runner), alive(pids.stack)]).to.deep.equal([true, true]);

    shell.kill('SIGKILL'); // the runner gets no signal: only its parent pid changes
    await waitFor(() => !alive(pids.runner) && !alive(pids.stack), {
      what: 'the orphaned runner to stop its stack and exit',
      timeoutMs: 10_000,
    });
  });
});
