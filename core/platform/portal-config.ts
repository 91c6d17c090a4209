/**
 * The debtor portal's part of the configuration (docs/operators/configuration.md, "Debtor portal"): its sessions,
 * how many second-factor tries a link and a client address get, and the collector's contact details every portal
 * page shows (the operator of this service collects on the creditor's behalf; the creditor's own contact details come
 * from its branding).
 */
import { num, str } from 'envalid';

export interface PortalConfig {
  sessionIdleTimeoutMs: number;
  sessionAbsoluteLifetimeMs: number;
  /** Wrong answers to the second factor allowed per link, and per client address, in one hour. */
  triesPerLinkPerHour: number;
  triesPerAddressPerHour: number;
  collector: { name: string; email: string; phone: string; hours: string };
}

export const PORTAL_ENV = {
  PORTAL_SESSION_IDLE_MINUTES: num({ default: 15, desc: 'a debtor portal session ends after this long unused' }),
  PORTAL_SESSION_MAX_MINUTES: num({ default: 60, desc: 'a debtor portal session ends this long after it began' }),
  PORTAL_TRIES_PER_LINK: num({ default: 5, desc: 'wrong second-factor answers per portal link, hourly' }),
  PORTAL_TRIES_PER_ADDRESS: num({ default: 20, desc: 'wrong second-factor answers per client address, hourly' }),
  PORTAL_COLLECTOR_NAME: str({ default: 'Debt Recovery Services', desc: 'the collector named on portal pages' }),
  PORTAL_COLLECTOR_EMAIL: str({ default: 'help@collector.example', desc: 'the collector’s email on portal pages' }),
  PORTAL_COLLECTOR_PHONE: str({ default: '1800 000 000', desc: 'the collector’s phone on portal pages' }),
  PORTAL_COLLECTOR_HOURS: str({ default: 'Monday to Friday, 9am to 5pm', desc: 'when the collector answers' }),
};

/** The variables as envalid hands them over. */
interface PortalEnv {
  PORTAL_SESSION_IDLE_MINUTES: number;
  PORTAL_SESSION_MAX_MINUTES: number;
  PORTAL_TRIES_PER_LINK: number;
  PORTAL_TRIES_PER_ADDRESS: number;
  PORTAL_COLLECTOR_NAME: string;
  PORTAL_COLLECTOR_EMAIL: string;
  PORTAL_COLLECTOR_PHONE: string;
  PORTAL_COLLECTOR_HOURS: string;
}

export function portalConfig(e: PortalEnv): PortalConfig {
  return {
    sessionIdleTimeoutMs: e.PORTAL_SESSION_IDLE_MINUTES * 60_000,
    sessionAbsoluteLifetimeMs: e.PORTAL_SESSION_MAX_MINUTES * 60_000,
    triesPerLinkPerHour: e.PORTAL_TRIES_PER_LINK,
    triesPerAddressPerHour: e.PORTAL_TRIES_PER_ADDRESS,
    collector: {
      name: e.PORTAL_COLLECTOR_NAME,
      email: e.PORTAL_COLLECTOR_EMAIL,
      phone: e.PORTAL_COLLECTOR_PHONE,
      hours: e.PORTAL_COLLECTOR_HOURS,
    },
  };
}
