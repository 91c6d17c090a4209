/**
 * The client console's part of the API's configuration (docs/operators/configuration.md, "Console"): its sessions,
 * how often sign-in links may be asked for, and whether the session cookie is `Secure`.
 */
import { num } from 'envalid';

export interface ConsoleConfig {
  sessionIdleTimeoutMs: number;
  sessionAbsoluteLifetimeMs: number;
  /** `Secure` (and the `__Host-` prefix) on the session cookie: outside development, or on an https host. */
  secureCookies: boolean;
  /** Sign-in link requests per (email, client address) in one hour: what one requester may ask for one address. */
  signInRequestsPerHour: number;
  /** Sign-in link requests per client address in one hour, whatever the emails. */
  signInRequestsPerAddressPerHour: number;
  /**
   * Sign-in links mailed to one email in 15 minutes (a link's life), whoever asks: a cap on mail, not a lockout, since
   * while it holds the last link mailed still works (core/staff/sign-in-limits.ts).
   */
  signInLinksPerEmail: number;
}

export const CONSOLE_ENV = {
  SESSION_IDLE_MINUTES: num({ default: 30, desc: 'a console session ends after this long unused' }),
  SESSION_MAX_HOURS: num({ default: 12, desc: 'a console session ends this long after sign-in, used or not' }),
  SIGN_IN_REQUESTS_PER_HOUR: num({ default: 5, desc: 'sign-in link requests per email and client address, hourly' }),
  SIGN_IN_REQUESTS_PER_ADDRESS_PER_HOUR: num({ default: 20, desc: 'sign-in link requests per client address, hourly' }),
  SIGN_IN_LINKS_PER_EMAIL: num({ default: 20, desc: 'sign-in links mailed to one email per 15 minutes' }),
};

/** The variables as envalid hands them over, with `APP_ENV` (webhook-config.ts) for the cookie's `Secure`. */
interface ConsoleEnv {
  SESSION_IDLE_MINUTES: number;
  SESSION_MAX_HOURS: number;
  SIGN_IN_REQUESTS_PER_HOUR: number;
  SIGN_IN_REQUESTS_PER_ADDRESS_PER_HOUR: number;
  SIGN_IN_LINKS_PER_EMAIL: number;
  APP_ENV: string;
}

export function consoleConfig(e: ConsoleEnv, publicBaseUrl: string): ConsoleConfig {
  return {
    sessionIdleTimeoutMs: e.SESSION_IDLE_MINUTES * 60_000,
    sessionAbsoluteLifetimeMs: e.SESSION_MAX_HOURS * 3_600_000,
    secureCookies: publicBaseUrl.startsWith('https:') || (e.APP_ENV !== 'development' && e.APP_ENV !== 'test'),
    signInRequestsPerHour: e.SIGN_IN_REQUESTS_PER_HOUR,
    signInRequestsPerAddressPerHour: e.SIGN_IN_REQUESTS_PER_ADDRESS_PER_HOUR,
    signInLinksPerEmail: e.SIGN_IN_LINKS_PER_EMAIL,
  };
}
