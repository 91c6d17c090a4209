/**
 * Sign-in by emailed magic link. A link carries 32 random bytes (base64url); only their SHA-256 is
 * stored. A link is good for 15 minutes and once: it is consumed by a POST from its landing page, never by the GET
 * a mail scanner makes. Asking for a link answers the same whether or not the address has an account; requests are
 * limited per email and per client address. The clock is injected so tests can move past the 15 minutes.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Mailer } from '../notifications/mail';
import type { Db } from '../platform/db';
import type { Logger } from '../platform/logger';
import type { Mode } from '../platform/mode';
import type { Redis } from '../platform/redis';
import { chargeSignInRequest, type SignInLimits } from './sign-in-limits';
import { findStaffUserByEmail, isPlausibleEmail, normalizeEmail, type StaffUser } from './staff-users';

export const SIGN_IN_LINK_TTL_MS = 15 * 60_000;
export const SIGN_IN_LINK_PATH = '/console/sign-in/link';
const TOKEN_FORM = /^[A-Za-z0-9_-]{43}$/;

export interface SignInLinkDeps {
  db: Db;
  redis: Redis;
  mailer: Mailer;
  logger: Logger;
  /** This host's public base URL: the link points here. */
  publicBaseUrl: string;
  /** This host's mode: the limits' keys start with it. */
  mode: Mode;
  limits: SignInLimits;
  now?: () => Date;
}

/** A row of `staff_sign_in_tokens`. */
export interface StaffSignInTokenRow {
  token_hash: string;
  user_id: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

export type LinkRequestOutcome = 'sent-if-known' | 'rate-limited';

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * Ask for a link. The answer does not depend on whether `email` has an account: the caller shows "check your email"
 * either way, and a limit reached is reported the same for known and unknown addresses.
 */
export async function requestSignInLink(
  deps: SignInLinkDeps,
  input: { email: string; clientAddress: string },
): Promise<LinkRequestOutcome> {
  const email = normalizeEmail(input.email);
  const decision = await chargeSignInRequest(deps, email, input.clientAddress);
  if (decision === 'requester-limited') return 'rate-limited';
  if (decision === 'email-capped') {
    deps.logger.warn({ emailHash: hashToken(email) }, 'sign-in links to one email capped; none sent');
    return 'sent-if-known';
  }
  if (!isPlausibleEmail(email)) return 'sent-if-known';
  const user = await findStaffUserByEmail(deps.db, email);
  if (!user) return 'sent-if-known';
  await sendSignInLink(deps, user, 'sign-in');
  deps.logger.info({ userId: user.id, organizationId: user.organizationId }, 'sign-in link sent');
  return 'sent-if-known';
}

export type LinkMailDeps = Pick<SignInLinkDeps, 'db' | 'mailer' | 'publicBaseUrl' | 'mode' | 'now'>;

/**
 * Why a link is mailed: asked for on the sign-in page, an invitation, or a sandbox sign-up with an address that
 * already has an account (the sign-up page answers as for any address; the mail says the rest).
 */
export type SignInLinkKind = 'sign-in' | 'invitation' | 'sign-up';

/** Store a new token for `user` and mail its link, worded for `kind`. */
export async function sendSignInLink(deps: LinkMailDeps, user: StaffUser, kind: SignInLinkKind): Promise<void> {
  const now = deps.now?.() ?? new Date();
  const token = randomBytes(32).toString('base64url');
  await deps.db('staff_sign_in_tokens').insert({
    token_hash: hashToken(token),
    user_id: user.id,
    created_at: now,
    expires_at: new Date(now.getTime() + SIGN_IN_LINK_TTL_MS),
    used_at: null,
  });
  const link = `${deps.publicBaseUrl}${SIGN_IN_LINK_PATH}?token=${token}`;
  const mail = { 'sign-in': signInMail, invitation: invitationMail, 'sign-up': existingAccountMail }[kind];
  await deps.mailer.send(mail(user, link, await consoleName(deps, user)));
}

/**
 * Which console a mail is about, said in every one: the organisation's name and the host's mode
 * (`Acme Lending's sandbox console`), so a reader with accounts in several knows which.
 */
async function consoleName(deps: LinkMailDeps, user: StaffUser): Promise<string> {
  const organization = await deps
    .db('organizations')
    .where({ id: user.organizationId })
    .first<{ name: string } | undefined>('name');
  const mode = deps.mode === 'production' ? 'live' : 'sandbox';
  return organization ? `${organization.name}'s ${mode} client console` : `the ${mode} client console`;
}

function signInMail({ email }: StaffUser, link: string, console: string) {
  return {
    to: email,
    subject: `Your sign-in link to ${console}`,
    text:
      `Open this link to sign in to ${console} as ${email}:\n\n${link}\n\n` +
      'It works once, within 15 minutes. If you did not ask for it, ignore this message.\n',
  };
}

function existingAccountMail({ email }: StaffUser, link: string, console: string) {
  return {
    to: email,
    subject: 'You already have a console account',
    text:
      `Someone asked to sign up for the sandbox with ${email}, which already has an account in ${console}; an ` +
      'address belongs to one organisation, so no new sandbox was made.\n\n' +
      `Open this link to sign in to your account instead:\n\n${link}\n\n` +
      'It works once, within 15 minutes. If you did not ask, ignore this message.\n',
  };
}

function invitationMail(user: StaffUser, link: string, console: string) {
  return {
    to: user.email,
    subject: `You are invited to ${console}`,
    text:
      `You have been given the ${user.role} role in ${console}, as ${user.email}.\n\n` +
      `Open this link to sign in:\n\n${link}\n\n` +
      'It works once, within 15 minutes; after that, ask for a new link on the sign-in page with this address.\n',
  };
}

/**
 * Consume a link's token: the user it signs in, or null if the token is unknown, used or expired. One statement
 * marks it used, so two POSTs of the same link sign in at most once.
 */
export async function consumeSignInLink(deps: Pick<SignInLinkDeps, 'db' | 'now'>, token: string) {
  if (!TOKEN_FORM.test(token)) return null;
  const now = deps.now?.() ?? new Date();
  const [row] = await deps
    .db('staff_sign_in_tokens')
    .where({ token_hash: hashToken(token) })
    .whereNull('used_at')
    .where('expires_at', '>', now)
    .update({ used_at: now })
    .returning(['user_id']);
  if (!row) return null;
  const user = await deps.db('staff_users').where({ id: row.user_id }).first();
  return user ? { userId: user.id, organizationId: user.organization_id, email: user.email, role: user.role } : null;
}
