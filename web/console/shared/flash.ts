/**
 * The message the page after a write shows once ("Key ci-deploy revoked."): post, redirect, get. The write sets it in
 * a short cookie (a minute, HttpOnly, SameSite=Lax) just before its 303; the next page the console renders shows it
 * and clears it. Only a write that passed the CSRF checks sets one, and the page renders it as text, never markup.
 */
import type { Context } from 'koa';
import { clearCookie, setCookie } from './http';

const FLASH_MAX_AGE_MS = 60_000;
/** `__Host-` when the cookies are secure, as the session's (http.ts cookieNames). */
const flashCookie = (secure: boolean) => (secure ? '__Host-console_flash' : 'console_flash');
const FLASH_MAX_LENGTH = 300;

export function setFlash(ctx: Context, secure: boolean, message: string): void {
  const value = Buffer.from(message.slice(0, FLASH_MAX_LENGTH), 'utf8').toString('base64url');
  setCookie(ctx, flashCookie(secure), value, secure, FLASH_MAX_AGE_MS);
}

/** The pending message, if any, cleared so it is shown once. */
export function takeFlash(ctx: Context, secure: boolean): string | undefined {
  const value = ctx.cookies.get(flashCookie(secure));
  if (value === undefined) return undefined;
  clearCookie(ctx, flashCookie(secure), secure);
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(value)) return undefined;
  const message = Buffer.from(value, 'base64url').toString('utf8').slice(0, FLASH_MAX_LENGTH);
  return message === '' ? undefined : message;
}
