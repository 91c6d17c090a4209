/**
 * Driving the debtor portal in Chromium (shared by the portal's browser tests): a 360-pixel phone viewport, with or
 * without JavaScript, proving the second factor for a link, screenshots under test-artifacts/portal/ (at 360 and
 * 1280 px), and a debt
 * raised with a link issued for it (the emailed link's token, issued directly as the notifications would).
 */
import path from 'node:path';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { PROJECT_ROOT } from '../../core/platform/project-root';
import { redisReady } from '../../core/platform/redis';
import { issuePortalLink, PORTAL_LINK_PATH } from '../../core/portal/links';
import { raiseDebt, type Caller, type Debt } from './debt-api';
import { testDb, testRedis } from './resources';

export const PORTAL_SHOTS = path.join(PROJECT_ROOT, 'test-artifacts', 'portal');

export const PHONE = { width: 360, height: 760 };

/** The desktop width every portal page is also shot at. */
export const WIDE = { width: 1280, height: 800 };

/**
 * Screenshots of the page as it is (`<name>.png`, the phone's 360 px) and, when narrower, at 1280 px
 * (`<name>-wide.png`); the viewport is put back afterwards. On the phone it first checks the page is no wider than
 * the screen.
 */
export async function portalShot(page: Page, name: string): Promise<void> {
  const viewport = page.viewportSize();
  if (viewport?.width === PHONE.width) {
    // Readable at 360 px: nothing makes the page wider than the phone (no sideways scrolling).
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width, `${name} is wider than the phone`).to.be.at.most(PHONE.width);
  }
  await page.screenshot({ path: path.join(PORTAL_SHOTS, `${name}.png`), fullPage: true });
  if (!viewport || viewport.width >= WIDE.width) return;
  await page.setViewportSize(WIDE);
  await page.screenshot({ path: path.join(PORTAL_SHOTS, `${name}-wide.png`), fullPage: true });
  await page.setViewportSize(viewport);
}

/** A phone-sized context; with JavaScript on it bypasses the CSP so axe-core can be injected. */
export function phone(browser: Browser, javaScript: boolean): Promise<BrowserContext> {
  return javaScript
    ? browser.newContext({ viewport: PHONE, bypassCSP: true })
    : browser.newContext({ viewport: PHONE, javaScriptEnabled: false });
}

export interface PortalDebt {
  debt: Debt & { externalAccountId: string };
  token: string;
  organizationId: string;
}

/** Raises a debt for debtor "… Harris" through the API and issues its portal link. */
export async function debtWithLink(
  api: Caller,
  organizationId: string,
  overrides: Record<string, unknown> = {},
): Promise<PortalDebt> {
  const debt = (await raiseDebt(api, { originalPrincipal: 1250.5, ...overrides })) as PortalDebt['debt'];
  const { token } = await issuePortalLink(testDb(), { organizationId, debtId: debt.id });
  return { debt, token, organizationId };
}

/** Opens the link and answers the second factor; returns the status of the answer's page. */
export async function enterPortal(
  page: Page,
  baseUrl: string,
  token: string,
  answer: { accountReference: string; surname: string },
): Promise<number> {
  await page.goto(`${baseUrl}${PORTAL_LINK_PATH}${token}`);
  await page.getByRole('heading', { name: 'Check it is you', level: 1 }).waitFor();
  await page.getByLabel('Account reference').fill(answer.accountReference);
  await page.getByLabel('Your surname (family name)').fill(answer.surname);
  const answered = page.waitForResponse((r) => r.request().method() === 'POST');
  await page.getByRole('button', { name: 'Continue' }).click();
  const status = (await answered).status();
  await page.waitForLoadState();
  return status;
}

export async function enterAs(page: Page, baseUrl: string, link: PortalDebt): Promise<void> {
  const status = await enterPortal(page, baseUrl, link.token, {
    accountReference: link.debt.externalAccountId,
    surname: 'Harris',
  });
  expect(status).to.equal(303);
  await page.getByRole('heading', { name: 'Your account', level: 1 }).waitFor();
}

/** Forgets every second-factor failure counted so far, so runs within the hour start afresh. */
export async function clearPortalTries(): Promise<void> {
  await redisReady(testRedis());
  const keys = await testRedis().keys('*:portal:verify-fails:*');
  if (keys.length > 0) await testRedis().del(...keys);
}
