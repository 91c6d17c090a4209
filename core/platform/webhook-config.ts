/**
 * The webhook part of the configuration (config.ts reads it for the API and the workers): the keys that seal signing
 * secrets at rest, and the development-only exemptions from the receiver URL checks.
 */
import { bool, str, makeValidator } from 'envalid';
import type { SecretKeys } from './secret-box';

/** Webhook settings shared by the API (configuration checks) and the webhooks worker (delivery). */
export interface WebhookConfig {
  /**
   * AES-256-GCM keys that encrypt signing secrets at rest: the current one seals, a previous one (during a rotation)
   * still opens. Null only where the caller said it needs none (`secretKeyOptional`: migrations, most CLI commands).
   */
  secretKeys: SecretKeys | null;
  /** Hosts exempt from the public-address check (local development and tests only). */
  allowHosts: string[];
  /** Allow `http://` receivers (local development and tests only). */
  allowHttp: boolean;
}

/**
 * Development-only key, public in this repository: used only when `APP_ENV` is `development` or `test` and no
 * WEBHOOK_SECRET_KEY is set. Anywhere else (APP_ENV unset or `production`) a missing key stops start-up.
 */
const DEV_WEBHOOK_SECRET_KEY = Buffer.alloc(32, 'client-api-dev-only-webhook-key!').toString('base64');

/** Where this process runs: `npm start`/`npm run dev` set `development`, the tests `test`; unset means production. */
export type AppEnv = 'development' | 'test' | 'production';
export const APP_ENVS: AppEnv[] = ['development', 'test', 'production'];

export interface LoadOptions {
  /** Migrations and the CLI's organisation and key commands never touch sealed secrets: a missing key is no error. */
  secretKeyOptional?: boolean;
}

function checkBase64Key32(input: string): string {
  if (Buffer.from(input, 'base64').length !== 32)
    throw new Error('expected 32 bytes, base64-encoded (openssl rand -base64 32)');
  return input;
}

const base64Key32 = makeValidator<string>(checkBase64Key32);

/** As base64Key32, where an empty value means "not set" (docker-compose passes optional variables as ''). */
const optionalBase64Key32 = makeValidator<string>((input) => (input === '' ? '' : checkBase64Key32(input)));

const hostList = makeValidator<string>((input) => {
  if (!/^[A-Za-z0-9.:[\]-]*(,[A-Za-z0-9.:[\]-]+)*$/.test(input))
    throw new Error('expected a comma-separated host list');
  return input;
});

export const WEBHOOK_ENV = {
  APP_ENV: str({ choices: APP_ENVS, default: 'production', desc: 'development and test allow the public dev key' }),
  WEBHOOK_SECRET_KEY: base64Key32({ default: undefined, desc: 'AES-256-GCM key for webhook secrets' }),
  WEBHOOK_SECRET_KEY_PREVIOUS: optionalBase64Key32({ default: '', desc: 'the key being rotated out (opens only)' }),
  WEBHOOK_ALLOW_HOSTS: hostList({ default: '', desc: 'hosts exempt from the public-address check (dev only)' }),
  WEBHOOK_ALLOW_HTTP: bool({ default: false, desc: 'allow http:// receivers (dev only)' }),
};

export interface WebhookEnv {
  APP_ENV: string;
  WEBHOOK_SECRET_KEY?: string;
  WEBHOOK_SECRET_KEY_PREVIOUS: string;
  WEBHOOK_ALLOW_HOSTS: string;
  WEBHOOK_ALLOW_HTTP: boolean;
}

const MISSING_KEY =
  'WEBHOOK_SECRET_KEY is required outside development and tests (APP_ENV is production or unset): it encrypts ' +
  'webhook signing secrets at rest, and the only default is a development key published in this repository. ' +
  'Generate one with `openssl rand -base64 32`, or set APP_ENV=development on a developer machine.';

function secretKeysOf(e: WebhookEnv, options: LoadOptions, problems: string[]): SecretKeys | null {
  const development = e.APP_ENV === 'development' || e.APP_ENV === 'test';
  const current = e.WEBHOOK_SECRET_KEY ?? (development ? DEV_WEBHOOK_SECRET_KEY : undefined);
  if (current === undefined) {
    if (!options.secretKeyOptional) problems.push(MISSING_KEY);
    return null;
  }
  const previous = e.WEBHOOK_SECRET_KEY_PREVIOUS || undefined;
  if (previous === current) problems.push('WEBHOOK_SECRET_KEY_PREVIOUS is invalid: it equals WEBHOOK_SECRET_KEY');
  return {
    current: Buffer.from(current, 'base64'),
    previous: previous === undefined ? null : Buffer.from(previous, 'base64'),
  };
}

export function webhookConfig(e: WebhookEnv, options: LoadOptions, problems: string[]): WebhookConfig {
  return {
    secretKeys: secretKeysOf(e, options, problems),
    allowHosts: e.WEBHOOK_ALLOW_HOSTS.split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
    allowHttp: e.WEBHOOK_ALLOW_HTTP,
  };
}
