/**
 * Runs `stop` once when the process that started this one is gone. `timeout npm start` or a supervisor sends SIGTERM
 * to npm, which passes it on to `sh -c`, not to the runner behind it: the shell dies, the runner is handed to init
 * (its parent pid changes), and without this check the stack it started would run on with no one to stop it.
 */
export function stopWhenOrphaned(stop: (parentPid: number) => void, checkEveryMs = 1_000): () => void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    stop(parent);
  }, checkEveryMs);
  timer.unref(); // the check never keeps a process alive on its own
  return () => clearInterval(timer);
}
