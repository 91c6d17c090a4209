/**
 * A TCP relay in front of a real server that a test can hang and release: while hung, connections stay open and
 * every byte is held, in both directions (a server that stopped answering, as a Temporal frontend that is stuck or
 * SIGSTOPped), and on release what was held flows on, in order.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpGate {
  /** `127.0.0.1:<port>` to connect to instead of the server. */
  address: string;
  hang(): void;
  release(): void;
  close(): Promise<void>;
}

export async function startTcpGate(upstream: string): Promise<TcpGate> {
  const colon = upstream.lastIndexOf(':');
  const [host, port] = [upstream.slice(0, colon), Number(upstream.slice(colon + 1))];
  const sockets = new Set<net.Socket>();
  const flushes = new Set<() => void>();
  let hung = false;

  /** Forwards `from` to `to`, holding the bytes while the gate is hung. */
  function forward(from: net.Socket, to: net.Socket): void {
    const held: Buffer[] = [];
    const flush = () => {
      while (held.length > 0) to.write(held.shift()!);
    };
    flushes.add(flush);
    from.on('data', (chunk: Buffer) => {
      if (hung) held.push(chunk);
      else to.write(chunk);
    });
    from.on('close', () => {
      flushes.delete(flush);
      to.destroy();
    });
    from.on('error', () => from.destroy());
    sockets.add(from);
    from.on('close', () => sockets.delete(from));
  }

  const server = net.createServer((client) => {
    const target = net.connect(port, host);
    forward(client, target);
    forward(target, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    hang() {
      hung = true;
    },
    release() {
      hung = false;
      for (const flush of flushes) flush();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
