/**
 * The operator CLI's commands, separate from process concerns so tests run them in-process against the real
 * database. Each returns an exit code; output goes through `out`/`err`. Bad arguments → exit 64 with a usage line.
 */
import { parseArgs } from 'node:util';
import { listApiKeys, mintApiKey, revokeApiKey } from '../../core/access/api-keys';
import type { Mode } from '../../core/platform/config';
import type { Db } from '../../core/platform/db';
import { isUuid } from '../../core/platform/ids';
import { createOrganization, getOrganization, listOrganizations } from '../../core/access/organizations';
import { isScope, SCOPES, type Scope } from '../../core/access/scopes';
import type { SecretBox } from '../../core/platform/secret-box';
import { resealSecrets } from '../../core/webhooks/secret-reseal';
import type { Client } from '@temporalio/client';
import { backfillDebtWorkflows } from '../../core/lifecycle/backfill';
import { createDebtTriggers } from '../../core/lifecycle/triggers';
import { ApiError } from '../../core/platform/errors';
import type { Mailer } from '../../core/notifications/mail';
import { sendSignInLink } from '../../core/staff/magic-links';
import {
  createStaffUser,
  isStaffRole,
  listStaffUsers,
  StaffEmailTakenError,
  STAFF_ROLES,
} from '../../core/staff/staff-users';

export interface CliIo {
  db: Db;
  mode: Mode;
  out: (line: string) => void;
  err: (line: string) => void;
  /** Built on first use from the configured keys: only `secrets reseal` needs them. */
  secretBox: () => SecretBox;
  /** The mode's Temporal client, connected on first use: only the lifecycle commands need it. */
  temporal: () => Client;
  /** The SMTP mailer and the console's base URL for this mode (where a link points): only `user invite` needs them. */
  mail?: { mailer: () => Mailer; consoleBaseUrl: string };
  /** The lifecycle task queue; the default one unless a test runs its own worker. */
  lifecycleTaskQueue?: string;
}

export const USAGE = `usage: npm run cli -- <command> [options]   (every command takes --mode production|sandbox; default production)
  org create --name <name>
  org list
  key create --org <organizationId> --name <name> --scopes all|<scope,scope,…> [--read-only]
             [--hourly-limit <n>] [--daily-limit <n>]
  key list [--org <organizationId>]
  key revoke --id <keyId>
  secrets reseal [--org <organizationId>]   re-seal every stored webhook secret under WEBHOOK_SECRET_KEY (after a key rotation)
  lifecycle backfill [--org <organizationId>]   start the workflow of every open debt that has none (idempotent)
  debt write-off --org <organizationId> --id <debtId>   operations write a debt off (through its workflow)
  user invite --org <organizationId> --email <email> --role ${STAFF_ROLES.join('|')}   a console user; the sign-in link goes by email
  user list [--org <organizationId>]
scopes: ${SCOPES.join(', ')}`;

export class UsageError extends Error {}

const EX_USAGE = 64;

export async function runCommand(args: string[], io: CliIo): Promise<number> {
  try {
    const [noun, verb, ...rest] = args;
    const command = COMMANDS[`${noun} ${verb}`];
    if (!command)
      throw new UsageError(noun ? `unknown command: ${[noun, verb].filter(Boolean).join(' ')}` : 'no command given');
    return await command(rest, io);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`error: ${error.message}\n${USAGE}`);
    return EX_USAGE;
  }
}

type Command = (args: string[], io: CliIo) => Promise<number>;

const COMMANDS: Record<string, Command> = {
  'org create': async (args, io) => {
    const { name } = options(args, { name: { type: 'string' } });
    const organization = await createOrganization(io.db, { name: required('name', name), mode: io.mode });
    io.out(JSON.stringify(organization, null, 2));
    return 0;
  },
  'org list': async (args, io) => {
    options(args, {});
    for (const o of await listOrganizations(io.db)) io.out(`${o.id}  ${o.mode}  ${o.createdAt}  ${o.name}`);
    return 0;
  },
  'key create': async (args, io) => {
    const v = options(args, {
      org: { type: 'string' },
      name: { type: 'string' },
      scopes: { type: 'string' },
      'read-only': { type: 'boolean' },
      'hourly-limit': { type: 'string' },
      'daily-limit': { type: 'string' },
    });
    const organizationId = uuid('org', required('org', v.org));
    if (!(await getOrganization(io.db, organizationId)))
      throw new UsageError(`no organisation ${organizationId} in ${io.mode}`);
    const { apiKey, secret } = await mintApiKey(io.db, {
      organizationId,
      mode: io.mode,
      name: required('name', v.name),
      scopes: parseScopes(required('scopes', v.scopes)),
      readOnly: v['read-only'] ?? false,
      hourlyLimit: positiveInt('hourly-limit', v['hourly-limit']),
      dailyLimit: positiveInt('daily-limit', v['daily-limit']),
    });
    io.out(`API key (shown once; store it now): ${secret}`);
    io.out(JSON.stringify(apiKey, null, 2));
    return 0;
  },
  'key list': async (args, io) => {
    const { org } = options(args, { org: { type: 'string' } });
    for (const k of await listApiKeys(io.db, org ? uuid('org', org) : undefined)) {
      const state = k.revokedAt ? `revoked ${k.revokedAt}` : 'active';
      io.out(
        `${k.id}  ${k.prefix}…  org=${k.organizationId}  ${state}  last-used=${k.lastUsedAt ?? 'never'}  ` +
          `read-only=${k.readOnly}  scopes=${k.scopes.join(',') || '(none)'}  "${k.name}"`,
      );
    }
    return 0;
  },
  'key revoke': async (args, io) => {
    const { id } = options(args, { id: { type: 'string' } });
    const keyId = uuid('id', required('id', id));
    if (!(await revokeApiKey(io.db, keyId))) throw new UsageError(`no active key ${keyId} in ${io.mode}`);
    io.out(`revoked ${keyId}`);
    return 0;
  },
  'secrets reseal': async (args, io) => {
    const { org } = options(args, { org: { type: 'string' } });
    const box = io.secretBox();
    let unreadable = 0;
    for (const result of await resealSecrets(io.db, box, { organizationId: org ? uuid('org', org) : undefined })) {
      io.out(`${result.table}: resealed ${result.resealed} under key ${box.currentKeyId}`);
      for (const pk of result.unreadable) io.err(`${result.table} ${pk}: opens under no configured key; left as is`);
      unreadable += result.unreadable.length;
    }
    return unreadable === 0 ? 0 : 1;
  },
  'lifecycle backfill': async (args, io) => {
    const { org } = options(args, { org: { type: 'string' } });
    const report = await backfillDebtWorkflows({
      db: io.db,
      client: io.temporal(),
      mode: io.mode,
      taskQueue: io.lifecycleTaskQueue,
      organizationId: org ? uuid('org', org) : undefined,
    });
    io.out(JSON.stringify(report));
    return 0;
  },
  'debt write-off': async (args, io) => {
    const { org, id } = options(args, { org: { type: 'string' }, id: { type: 'string' } });
    const triggers = createDebtTriggers({
      db: io.db,
      client: io.temporal(),
      mode: io.mode,
      taskQueue: io.lifecycleTaskQueue,
    });
    try {
      io.out(
        JSON.stringify(
          await triggers.writeOff(uuid('org', required('org', org)), uuid('id', required('id', id))),
          null,
          2,
        ),
      );
      return 0;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      io.err(`error: ${error.code}: ${error.message}`);
      return 1;
    }
  },
  'user invite': async (args, io) => {
    const v = options(args, { org: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' } });
    const organizationId = uuid('org', required('org', v.org));
    const role = required('role', v.role);
    if (!isStaffRole(role)) throw new UsageError(`--role must be one of ${STAFF_ROLES.join(', ')} (got "${role}")`);
    const email = required('email', v.email);
    if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new UsageError(`--email must be an email address (got "${email}")`);
    if (!(await getOrganization(io.db, organizationId)))
      throw new UsageError(`no organisation ${organizationId} in ${io.mode}`);
    let user;
    try {
      user = await createStaffUser(io.db, organizationId, { email, role });
    } catch (error) {
      if (!(error instanceof StaffEmailTakenError)) throw error;
      io.err(`error: ${email} already has a console account`);
      return 1;
    }
    if (!io.mail) throw new Error('user invite needs a mailer');
    const mailDeps = { db: io.db, mailer: io.mail.mailer(), publicBaseUrl: io.mail.consoleBaseUrl, mode: io.mode };
    await sendSignInLink(mailDeps, user, 'invitation');
    io.out(`invited ${user.email} as ${user.role} (user ${user.id}); the sign-in link was sent by email`);
    return 0;
  },
  'user list': async (args, io) => {
    const { org } = options(args, { org: { type: 'string' } });
    for (const u of await listStaffUsers(io.db, org ? uuid('org', org) : undefined)) {
      io.out(`${u.id}  org=${u.organizationId}  ${u.role}  ${u.createdAt}  ${u.email}`);
    }
    return 0;
  },
};

type OptionSpec = Record<string, { type: 'string' | 'boolean' }>;

function options<T extends OptionSpec>(args: string[], spec: T) {
  try {
    return parseArgs({ args, options: spec, allowPositionals: false, strict: true }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function required(name: string, value: string | undefined): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value.trim();
}

function uuid(name: string, value: string): string {
  if (!isUuid(value)) throw new UsageError(`--${name} must be a UUID (got "${value}")`);
  return value;
}

function positiveInt(name: string, value: string | undefined): number | null {
  if (value === undefined) return null;
  if (!/^[1-9]\d{0,8}$/.test(value)) throw new UsageError(`--${name} must be a positive whole number (got "${value}")`);
  return Number(value);
}

export function parseScopes(value: string): Scope[] {
  if (value === 'all') return [...SCOPES];
  const scopes = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length > 0) throw new UsageError(`unknown scope(s): ${unknown.join(', ')}`);
  return [...new Set(scopes)] as Scope[];
}
