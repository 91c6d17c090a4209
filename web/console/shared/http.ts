/**
 * The console's request plumbing: the form body (urlencoded, bounded), query values, the 303 after a write, the
 * session cookie, and the two CSRF checks
 * every state-changing request passes: the browser's own word on where the request comes from (`Sec-Fetch-Site`,
 * else `Origin`), and the synchronizer token the page put in the form (the session's; before sign-in, a random
 * token in a short cookie, compared the same way).
 */
import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { controlCharacterProblem } from '../../../core/platform/control-characters';
import { ApiError } from '../../../core/platform/errors';
import { csrfTokensMatch } from '../../../core/staff/sessions';

export const FORM_LIMIT_BYTES = 16 * 1024;

export type FormBody = Record<string, string[]>;

export function field(form: FormBody, name: string): string {
  return form[name]?.[0] ?? '';
}

/** A query parameter given once, or undefined (absent, empty or repeated). */
export function queryValue(ctx: Context, name: string): string | undefined {
  const value = ctx.query[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Sends the browser on to `location` with a GET (303 See Other), as after a form's write. */
export function seeOther(ctx: Context, location: string): void {
  ctx.status = 303;
  ctx.redirect(location);
}

/**
 * Reads an `application/x-www-form-urlencoded` body; anything else, more than 16 KiB, or a field holding a control
 * character is refused.
 */
export async function readForm(ctx: Context): Promise<FormBody> {
  if (!ctx.is('application/x-www-form-urlencoded')) throw new ApiError('unsupported_media_type');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > FORM_LIMIT_BYTES) throw new ApiError('payload_too_large');
    chunks.push(chunk);
  }
  const form: FormBody = {};
  for (const [key, value] of new URLSearchParams(Buffer.concat(chunks).toString('utf8'))) {
    // Nothing a form stores may hold a control character (core/platform/control-characters.ts).
    const problem = controlCharacterProblem(key) ?? controlCharacterProblem(value);
    if (problem) {
      throw new ApiError('invalid_request', `The form's field ${JSON.stringify(key.slice(0, 40))} ${problem}.`);
    }
    (form[key] ??= []).push(value);
  }
  return form;
}

export interface CookieNames {
  session: string;
  preSession: string;
}

/** `__Host-` needs `Secure` (and no Domain, path `/`): used whenever the cookies are secure. */
export function cookieNames(secure: boolean): CookieNames {
  return secure
    ? { session: '__Host-console_session', preSession: '__Host-console_csrf' }
    : { session: 'console_session', preSession: 'console_csrf' };
}

export function setCookie(ctx: Context, name: string, value: string, secure: boolean, maxAgeMs?: number): void {
  ctx.cookies.set(name, value, {
    httpOnly: true,
    sameSite: 'lax',
    secure,
    path: '/',
    overwrite: true,
    ...(maxAgeMs === undefined ? {} : { maxAge: maxAgeMs }),
  });
}

export function clearCookie(ctx: Context, name: string, secure: boolean): void {
  ctx.cookies.set(name, '', { httpOnly: true, sameSite: 'lax', secure, path: '/', maxAge: 0, overwrite: true });
}

/** The token for an anonymous form (sign-in, the link's landing page), kept in a cookie for an hour. */
export function preSessionToken(ctx: Context, names: CookieNames, secure: boolean): string {
  const existing = ctx.cookies.get(names.preSession);
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const token = randomBytes(32).toString('base64url');
  setCookie(ctx, names.preSession, token, secure, 3_600_000);
  return token;
}

/**
 * Refuses a cross-site request: `Sec-Fetch-Site` other than `same-origin` (or `none`, a typed address), or, from a
 * browser that does not send it, an `Origin` other than this host's: its public base URL, or the origin the request
 * was addressed to (a browser sets both `Origin` and `Host`; a page of another site cannot make them agree).
 */
export function checkSameOrigin(ctx: Context, publicBaseUrl: string): void {
  const site = ctx.get('sec-fetch-site');
  if (site && site !== 'same-origin' && site !== 'none') throw csrfRefused('The request came from another site.');
  const origin = ctx.get('origin');
  // Koa 3's ctx.origin echoes the Origin header: the request's own origin is built from its protocol and Host.
  const addressed = `${ctx.protocol}://${ctx.host}`;
  if (origin && origin !== new URL(publicBaseUrl).origin && origin !== addressed) {
    throw csrfRefused('The request came from another origin.');
  }
}

export function checkCsrfToken(expected: string, form: FormBody): void {
  if (!csrfTokensMatch(expected, form._csrf?.[0])) {
    throw csrfRefused('The form had expired or did not come from this site. Reload the page and try again.');
  }
}

function csrfRefused(detail: string): ApiError {
  return new ApiError('forbidden', detail);
}
