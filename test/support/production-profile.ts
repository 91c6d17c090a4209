/**
 * The production profile (scripts/stage.sh) as a test suite runs it: its own instance (`stagetest`, ports from 18400,
 * its own PostgreSQL cluster, Redis, Temporal server and state directory), beside a running `npm start` and the other
 * test processes. It is the operator's command with three settings a production deployment would not have, each
 * named: the test-mode card processor, the suite's webhook receiver on 127.0.0.1, and no bootstrap (npm test's ran).
 * Clients reach it only through its TLS proxy, trusting its local CA: undici with the CA for fetch, Chromium trusting
 * the certificate's key.
 */
import { execFile } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { Agent, fetch as undiciFetch, type RequestInit as UndiciRequestInit } from 'undici';
import { PROJECT_ROOT } from '../../core/platform/project-root';

const run = promisify(execFile);

/** The suite's Stripe account: the stand-in's port (the profile's base + 23) and the keys the profile is given. */
export const PROFILE_STRIPE = {
  port: 18423,
  secretKey: 'sk_test_production_profile_suite',
  publishableKey: 'pk_test_production_profile_suite',
  webhookSecret: 'whsec_production_profile_suite',
};

export const PROFILE_SETTINGS = {
  STAGE_NAME: 'stagetest',
  STAGE_PORT_BASE: '18400',
  STAGE_PAYMENT_PROCESSOR: 'stripe',
  STAGE_STRIPE_PUBLISHABLE_KEY: PROFILE_STRIPE.publishableKey,
  STAGE_STRIPE_API_URL: `http://127.0.0.1:${PROFILE_STRIPE.port}`,
  STAGE_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
  STAGE_SKIP_BOOTSTRAP: '1',
};

export interface ProductionProfile {
  env: Record<string, string>;
  /** The profile's CA certificate (PEM). */
  ca: string;
  /** The proxy's certificate and key, for a receiver the profile's processes trust (the same CA). */
  serverTls: { cert: string; key: string };
  /** Chromium's switch trusting exactly the proxy's key (the certificate is the local CA's). */
  chromiumArgs: string[];
  /** fetch through the proxy, trusting the local CA. */
  fetch: (url: string, init?: UndiciRequestInit) => ReturnType<typeof undiciFetch>;
  stage: (...args: string[]) => Promise<string>;
  /** The pid supervisor reports for a program; 0 while it is not running. */
  pidOf: (program: string) => Promise<number>;
}

/** The operator's command on one named instance of the profile (its settings: STAGE_NAME, ports, …). */
const stageWith =
  (settings: Record<string, string>) =>
  async (...args: string[]): Promise<string> => {
    const { stdout } = await run('bash', ['scripts/stage.sh', ...args], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, ...settings },
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout;
  };

const stageEnv = async (stage: ReturnType<typeof stageWith>): Promise<Record<string, string>> =>
  Object.fromEntries(
    (await stage('env'))
      .trim()
      .split('\n')
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );

/** Where an operator puts them: Stripe's two secrets, in the profile's secrets directory. */
async function writeStripeSecrets(secretsDir: string): Promise<void> {
  await mkdir(secretsDir, { recursive: true, mode: 0o700 });
  await writeFile(path.join(secretsDir, 'stripe-secret-key'), PROFILE_STRIPE.secretKey, { mode: 0o600 });
  await writeFile(path.join(secretsDir, 'stripe-webhook-secret'), PROFILE_STRIPE.webhookSecret, { mode: 0o600 });
}

/**
 * Starts the profile (idempotent: what is up stays up) and returns how to reach it. The suite's instance by default;
 * the bench starts one of its own (other name and ports, no card processor).
 */
export async function startProductionProfile(
  settings: Record<string, string> = PROFILE_SETTINGS,
): Promise<ProductionProfile> {
  const stage = stageWith(settings);
  if (settings.STAGE_PAYMENT_PROCESSOR === 'stripe')
    await writeStripeSecrets((await stageEnv(stage)).STAGE_SECRETS_DIR!);
  await stage('start', '--detach');
  const env = await stageEnv(stage);
  const pki = env.STAGE_PKI_DIR!;
  const [ca, cert, key] = await Promise.all(
    ['ca.crt', 'server.crt', 'server.key'].map((f) => readFile(path.join(pki, f), 'utf8')),
  );
  const spki = new X509Certificate(cert!).publicKey.export({ type: 'spki', format: 'der' });
  const dispatcher = new Agent({ connect: { ca } });
  return {
    env,
    ca: ca!,
    serverTls: { cert: cert!, key: key! },
    chromiumArgs: [`--ignore-certificate-errors-spki-list=${createHash('sha256').update(spki).digest('base64')}`],
    fetch: (url, init) => undiciFetch(url, { ...init, dispatcher }),
    stage,
    pidOf: async (program) => Number((await stage('ctl', 'pid', program)).trim()) || 0,
  };
}

/** Sets a tenant's webhook URL through the profile's proxy, as a client does (the API seals its signing secret). */
export async function setProfileWebhookUrl(
  profile: ProductionProfile,
  baseUrl: string,
  authorization: string,
  url: string,
): Promise<void> {
  const res = await profile.fetch(`${baseUrl}/v1/webhooks`, {
    method: 'PUT',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify({ url }),
  });
  if (res.status !== 200) throw new Error(`PUT ${baseUrl}/v1/webhooks answered ${res.status}: ${await res.text()}`);
}

/** A secret of the profile's, as its processes read it (the secrets directory, one file each). */
export async function profileSecret(profile: ProductionProfile, name: string): Promise<string> {
  return (await readFile(path.join(profile.env.STAGE_SECRETS_DIR!, name), 'utf8')).trim();
}

/** Where a bench or soak reads the profile's database of a mode directly (as an operator's psql would). */
export async function profileDatabaseUrl(profile: ProductionProfile, mode: 'production' | 'sandbox'): Promise<string> {
  const password = await profileSecret(profile, 'app-db-password');
  return `postgres://client_api:${password}@127.0.0.1:${profile.env.POSTGRES_PORT}/client_api_${mode}`;
}

/**
 * Stops the instance and deletes it (its PostgreSQL cluster and state directory): a bench or soak starts from
 * nothing, never meeting an earlier run's deliveries still retrying to a receiver long closed.
 */
export function destroyProductionProfile(settings: Record<string, string>): Promise<string> {
  return stageWith(settings)('destroy');
}

export function stopProductionProfile(settings: Record<string, string> = PROFILE_SETTINGS): Promise<string> {
  return stageWith(settings)('stop');
}
