/**
 * A free loopback port for a server a test starts itself (its own PostgreSQL, Redis or Temporal, a process's metrics).
 * Drawn at random below the kernel's ephemeral range (32768–60999 here) and above the fixed ports of the stacks on this
 * machine (the development stack's, the tests' servers, the production profiles' 8400–8482 and 18400–18482): a port
 * from the ephemeral range, found free and handed to a process that binds it seconds later, was taken meanwhile by an
 * outgoing connection of another test process (EADDRINUSE, seen in a parallel run). A port in use is skipped.
 */
import net from 'node:net';
import { randomInt } from 'node:crypto';

const LOWEST = 20_000;
const HIGHEST = 32_767;

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = randomInt(LOWEST, HIGHEST + 1);
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port between ${LOWEST} and ${HIGHEST} after 100 tries`);
}
