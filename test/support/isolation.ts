/**
 * Tests keep to themselves: nothing a test runs may reach the development stack that `npm start` runs on this
 * machine (its PostgreSQL, Redis, Temporal server and UI, mail sink, APIs and metrics ports). Two guards:
 * - every process a test spawns gets its environment checked by `isolatedEnv`: the configuration the process would
 *   load from it (defaults included) must name no development endpoint;
 * - the test process's own sockets to those ports are refused (`refuseDevStackConnections`, a root hook).
 * The development endpoints are read from the same loaders and defaults the processes use, not listed by hand.
 */
import net from 'node:net';
import { loadConfig } from '../../core/platform/config';
import { loadWorkerConfig } from '../../core/platform/worker-config';

/**
 * The Temporal address of a process started by a test that runs no Temporal server: port 1 is served by nothing on
 * these machines, so a connection is refused at once, as it is on a machine where no development stack runs.
 */
export const NO_TEMPORAL_ADDRESS = '127.0.0.1:1';

/** maildev's web inbox beside the development SMTP sink (scripts/dev.ts). */
const DEV_MAIL_INBOX_PORT = 1080;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]', '0.0.0.0', '']);

interface Endpoint {
  what: string;
  host: string;
  port: number;
}

function urlEndpoint(what: string, value: string, defaultPort: number): Endpoint {
  const url = new URL(value);
  return { what, host: url.hostname, port: Number(url.port || defaultPort) };
}

function hostPortEndpoint(what: string, value: string): Endpoint {
  const at = value.lastIndexOf(':');
  return { what, host: value.slice(0, at), port: Number(value.slice(at + 1)) };
}

/** What a process run with `env` would connect to or listen on, read by the project's own configuration loaders. */
function endpointsOf(env: NodeJS.ProcessEnv, kind: ProcessKind): Endpoint[] {
  if (kind === 'worker') {
    const c = loadWorkerConfig(env);
    return [
      ...c.modes.map((m) => urlEndpoint(`${m.mode} database`, m.databaseUrl, 5432)),
      urlEndpoint('Redis', c.redisUrl, 6379),
      hostPortEndpoint('Temporal', c.temporalAddress),
      urlEndpoint('SMTP relay', c.notifications.smtpUrl, 25),
      ...(c.metricsPort ? [{ what: 'metrics port', host: c.metricsHost, port: c.metricsPort }] : []),
    ];
  }
  const c = loadConfig(env);
  return [
    { what: 'API port', host: c.host, port: c.port },
    ...(c.metricsPort ? [{ what: 'metrics port', host: c.host, port: c.metricsPort }] : []),
    urlEndpoint('database', c.databaseUrl, 5432),
    urlEndpoint('Redis', c.redisUrl, 6379),
    hostPortEndpoint('Temporal', c.temporal.address),
    urlEndpoint('SMTP relay', c.mail.smtpUrl, 25),
  ];
}

export type ProcessKind = 'api' | 'worker';

let devPorts: Map<number, string> | undefined;

/** The loopback ports of the development stack: each loader's defaults, for both modes, and maildev's inbox. */
export function devStackPorts(): Map<number, string> {
  if (devPorts) return devPorts;
  const empty = { APP_ENV: 'development' };
  const all = [
    ...endpointsOf(empty, 'api'),
    ...endpointsOf({ ...empty, API_MODE: 'sandbox' }, 'api'),
    ...endpointsOf(empty, 'worker'),
    { what: 'mail inbox', host: '127.0.0.1', port: DEV_MAIL_INBOX_PORT },
  ];
  devPorts = new Map(all.map((e) => [e.port, `the development ${e.what}`]));
  return devPorts;
}

/** The kind of configuration an entry point loads: the workers theirs, everything else the API's. */
export function kindOfEntry(entry: string): ProcessKind {
  return /(^|\/)workers\//.test(entry) ? 'worker' : 'api';
}

/**
 * The environment for a process a test spawns: `process.env` with `overrides`, checked so that the process reaches
 * none of the development stack's ports. Throws, naming the variable's effect, when it would. An environment the
 * loader refuses is passed as is: the process exits on it, which is what such a test is about.
 */
export function isolatedEnv(overrides: NodeJS.ProcessEnv, kind: ProcessKind): NodeJS.ProcessEnv {
  const env = { ...process.env, ...overrides };
  let endpoints: Endpoint[];
  try {
    endpoints = endpointsOf(env, kind);
  } catch {
    return env;
  }
  const ports = devStackPorts();
  for (const e of endpoints) {
    const dev = ports.get(e.port);
    if (dev && LOOPBACK.has(e.host)) {
      throw new Error(
        `a test would start a process whose ${e.what} is ${e.host}:${e.port}, ${dev} (npm start's): give it the test's own`,
      );
    }
  }
  return env;
}

function isLoopback(host: string | undefined): boolean {
  return host === undefined || LOOPBACK.has(host);
}

/** The port and host a `net.Socket#connect` call names, whichever of its forms it was called with. */
function connectTarget(args: unknown[]): { port?: number; host?: string } {
  const [first, second] = args;
  if (Array.isArray(first)) return connectTarget(first as unknown[]); // the internal normalized form
  if (typeof first === 'object' && first !== null) {
    const o = first as { port?: number | string; host?: string; path?: string };
    return o.path ? {} : { port: o.port === undefined ? undefined : Number(o.port), host: o.host };
  }
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    return { port: Number(first), host: typeof second === 'string' ? second : undefined };
  }
  return {};
}

let restoreConnect: (() => void) | undefined;

/**
 * Makes a connection from this process to a development stack port fail at once with an error that says so, instead
 * of reaching (and writing to) the stack a developer has running. Returns the function that lifts the guard.
 */
export function refuseDevStackConnections(): () => void {
  if (restoreConnect) return restoreConnect;
  const ports = devStackPorts();
  // eslint-disable-next-line @typescript-eslint/unbound-method -- restored as it was, and called with this socket
  const original = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    const { port, host } = connectTarget(args);
    const dev = port === undefined ? undefined : ports.get(port);
    if (dev && isLoopback(host)) {
      // Failed as a refused connection fails (an error event on the socket), so every client reports it its own way.
      const refused = new Error(
        `a test connected to ${host ?? 'localhost'}:${port}, ${dev} (npm start's): use the test's own`,
      );
      process.nextTick(() => this.destroy(refused));
      return this;
    }
    return Reflect.apply(original, this, args) as net.Socket;
  };
  restoreConnect = () => {
    net.Socket.prototype.connect = original;
    restoreConnect = undefined;
  };
  return restoreConnect;
}
