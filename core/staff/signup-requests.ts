/**
 * The console's sandbox sign-up, in two steps so that its answer says nothing about the address (as sign-in's does
 * not): the form always answers "check your email", and the mail says the rest. An address with no account gets a
 * link that confirms the sign-up (the pending sign-up waits in Redis under the link token's hash, 15 minutes, used
 * once); an address that has one gets a sign-in link and a word that it already has an account. Mail to one address
 * is capped per hour (the requests still get the same answer), so the form cannot be used to flood an inbox.
 */
import { createHash, randomBytes } from 'node:crypto';
import { errors } from '../platform/errors';
import { chargeWindow, limitKey } from '../platform/fixed-window';
import type { Logger } from '../platform/logger';
import type { Redis } from '../platform/redis';
import { sendSignInLink, type LinkMailDeps } from './magic-links';
import { findStaffUserByEmail, isPlausibleEmail, normalizeEmail } from './staff-users';

export const SIGNUP_LINK_TTL_MS = 15 * 60_000;
export const SIGNUP_CONFIRM_PATH = '/console/sign-up/confirm';
/** Sign-up mails to one address per hour, whoever asks. */
export const SIGNUP_MAILS_PER_EMAIL_PER_HOUR = 3;
const TOKEN_FORM = /^[A-Za-z0-9_-]{43}$/;

export interface PendingSignup {
  email: string;
  organizationName?: string;
}

export interface SignupRequestDeps {
  redis: Redis;
  logger: Logger;
  mail: LinkMailDeps;
}

const digest = (text: string) => createHash('sha256').update(text).digest('hex');
const pendingKey = (token: string) => limitKey('sandbox', 'console', 'sign-up', 'pending', digest(token));

/** Mails the address what comes next; resolves the same way whether or not it has an account. */
export async function requestConsoleSignup(deps: SignupRequestDeps, input: PendingSignup): Promise<void> {
  const email = normalizeEmail(input.email);
  if (!isPlausibleEmail(email)) {
    throw errors.invalidRequest('Enter the email address you will sign in with.', [
      { path: 'body.email', message: 'must be an email address' },
    ]);
  }
  const inbox = await chargeWindow(deps.redis, limitKey('sandbox', 'console', 'sign-up', 'email', digest(email)), {
    limit: SIGNUP_MAILS_PER_EMAIL_PER_HOUR,
    windowMs: 3_600_000,
  });
  if (!inbox.allowed) {
    deps.logger.warn({ emailHash: digest(email) }, 'sign-up mails to one address capped; none sent');
    return;
  }
  const user = await findStaffUserByEmail(deps.mail.db, email);
  if (user) {
    await sendSignInLink(deps.mail, user, 'sign-up');
    return;
  }
  const token = randomBytes(32).toString('base64url');
  const pending: PendingSignup = { email, organizationName: input.organizationName };
  await deps.redis.set(pendingKey(token), JSON.stringify(pending), 'PX', SIGNUP_LINK_TTL_MS);
  const link = `${deps.mail.publicBaseUrl}${SIGNUP_CONFIRM_PATH}?token=${token}`;
  await deps.mail.mailer.send({
    to: email,
    subject: 'Confirm your sandbox',
    text:
      `Open this link to create your sandbox organisation${input.organizationName ? `, ${input.organizationName},` : ''} ` +
      `with you (${email}) as its owner:\n\n${link}\n\n` +
      'It works once, within 15 minutes. If you did not ask for a sandbox, ignore this message: nothing is created.\n',
  });
}

/** The sign-up a confirmation link stands for, taken once (GETDEL); null if unknown, used or expired. */
export async function takePendingSignup(redis: Redis, token: string): Promise<PendingSignup | null> {
  if (!TOKEN_FORM.test(token)) return null;
  const stored = await redis.getdel(pendingKey(token));
  return stored ? (JSON.parse(stored) as PendingSignup) : null;
}
