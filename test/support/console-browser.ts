/**
 * Driving the client console in Chromium (shared by the console's browser tests): screenshots, asking for a sign-in
 * link and reading it from the mail sink, signing in, a POST forged outside the page, whether a context is signed
 * out, and axe-core's serious or critical violations on a page.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { PROJECT_ROOT } from '../../core/platform/project-root';
import { createStaffUser, type StaffRole } from '../../core/staff/staff-users';
import type { MailSink } from './mail-sink';
import { testDb } from './resources';

/** Screenshots of every page, a test artefact (git-ignored); docs/console.md carries copies of the main ones. */
export const CONSOLE_SHOTS = path.join(PROJECT_ROOT, 'test-artifacts', 'console');

export interface ConsoleBrowser {
  /** `<name>.png` at the viewport and `<name>-360.png` at a phone's width. */
  shot: (page: Page, name: string) => Promise<void>;
  noJs: (browser: Browser) => Promise<BrowserContext>;
  /** Asks for a link on the sign-in page; returns the text of the page that answers. */
  askForLink: (page: Page, email: string) => Promise<string>;
  /** The path of the link in the `nth` mail to `email`. */
  linkIn: (email: string, nth: number) => Promise<string>;
  signIn: (context: BrowserContext, email: string) => Promise<Page>;
  /** A POST made outside the page (what a forger's script or another site sends), with this browser's cookies. */
  forgedPost: (
    page: Page,
    path: string,
    form: Record<string, string>,
    headers: Record<string, string>,
  ) => Promise<Response>;
  isSignedOut: (context: BrowserContext) => Promise<boolean>;
  /** The ids of axe-core's serious or critical violations on `page` (its context must bypass the CSP). */
  seriousViolations: (page: Page) => Promise<string[]>;
}

/** A phone's width: every console page reads at it without scrolling sideways. */
export const NARROW_WIDTH = 360;

const save = (page: Page, name: string) =>
  page.screenshot({ path: path.join(CONSOLE_SHOTS, `${name}.png`), fullPage: true });

/** Fails unless `page` fits `width` (a wide table or payload scrolls in its own box, never the page). */
async function expectNoSidewaysScroll(page: Page, name: string, width: number): Promise<void> {
  const { scrollWidth, widest } = await page.evaluate((limit) => {
    // What to fix when this fails: the innermost elements past the right edge that no scroll box of theirs clips.
    // (No named function in here: the test runner's transpiler would wrap it in a helper the page does not have.)
    const past = Array.from(document.querySelectorAll('body *')).filter((e) => {
      // Its box, or the content it lets spill out (a long line of a <pre>), ends past the edge.
      const box = e.getBoundingClientRect();
      const spills = getComputedStyle(e).overflowX === 'visible' && box.left + e.scrollWidth > limit + 0.5;
      if (box.right <= limit + 0.5 && !spills) return false;
      for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
        if (getComputedStyle(a).overflowX !== 'visible') return false;
      }
      return true;
    });
    const innermost = past.filter((e) => !past.some((other) => other !== e && e.contains(other)));
    return {
      scrollWidth: document.documentElement.scrollWidth,
      widest: innermost.slice(0, 5).map((e) => `${e.tagName.toLowerCase()}.${Array.from(e.classList).join('.')}`),
    };
  }, width);
  expect(scrollWidth, `${name} at ${width} px scrolls sideways (${widest.join(', ')})`).to.be.at.most(width);
}

/**
 * Screenshots of `page` at its viewport (`<name>.png`, 1280 px wide unless the test set another) and at 360 px
 * (`<name>-360.png`, checked to fit the phone's width), its viewport restored after.
 */
export async function shot(page: Page, name: string): Promise<void> {
  await save(page, name);
  const viewport = page.viewportSize();
  if (viewport?.width === NARROW_WIDTH) return;
  await page.setViewportSize({ width: NARROW_WIDTH, height: 800 });
  await save(page, `${name}-360`);
  await expectNoSidewaysScroll(page, name, NARROW_WIDTH);
  if (viewport) await page.setViewportSize(viewport);
}

/** Screenshots of `page` at 1280 and 360 px wide (`<name>-1280.png`, `<name>-360.png`), its viewport restored after. */
export async function shotAt(page: Page, name: string): Promise<void> {
  const viewport = page.viewportSize();
  for (const width of [1280, NARROW_WIDTH]) {
    await page.setViewportSize({ width, height: 800 });
    await save(page, `${name}-${width}`);
    if (width === NARROW_WIDTH) await expectNoSidewaysScroll(page, name, width);
  }
  if (viewport) await page.setViewportSize(viewport);
}

/** A browser context with JavaScript off, as every console page must work. */
export const noJs = (browser: Browser) => browser.newContext({ javaScriptEnabled: false });

/** A new staff user of `organizationId` with `role`; returns the email. */
export async function newStaffUser(organizationId: string, role: StaffRole): Promise<string> {
  const email = `${role}-${randomUUID()}@example.test`;
  await createStaffUser(testDb(), organizationId, { email, role });
  return email;
}

let axeSource: string | undefined;

/**
 * The ids of axe-core's serious and critical violations on `page`. The pages forbid every script (CSP): the page's
 * context must be made with `bypassCSP: true` for the test to inject axe.
 */
export async function seriousAxeViolations(page: Page): Promise<string[]> {
  axeSource ??= await readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
  await page.addScriptTag({ content: axeSource });
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: () => Promise<{ violations: { id: string; impact: string }[] }> } })
      .axe;
    const result = await axe.run();
    return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
  });
}

/** `baseUrl` and `sink` are read when used: suites start their server and sink in `before`. */
export function consoleBrowser(env: { baseUrl: () => string; sink: () => MailSink }): ConsoleBrowser {
  async function askForLink(page: Page, email: string): Promise<string> {
    await page.goto(`${env.baseUrl()}/console/sign-in`);
    await page.getByLabel('Email address').fill(email);
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await page.getByRole('heading', { name: 'Check your email' }).waitFor();
    return page.locator('main').innerText();
  }

  async function linkIn(email: string, nth: number): Promise<string> {
    const mail = await env.sink().nthMailTo(email, nth);
    const link = /http:\/\/\S+(\/console\/sign-in\/link\?token=[A-Za-z0-9_-]{43})/.exec(mail.text)?.[1];
    expect(link, mail.text).to.be.a('string');
    return link!;
  }

  async function signIn(context: BrowserContext, email: string): Promise<Page> {
    const page = await context.newPage();
    const count = (await env.sink().mailTo(email)).length;
    await askForLink(page, email);
    await page.goto(`${env.baseUrl()}${await linkIn(email, count + 1)}`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    return page;
  }

  async function forgedPost(page: Page, path: string, form: Record<string, string>, headers: Record<string, string>) {
    const cookies = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    return fetch(`${env.baseUrl()}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookies, ...headers },
      body: new URLSearchParams(form).toString(),
      redirect: 'manual',
    });
  }

  async function isSignedOut(context: BrowserContext): Promise<boolean> {
    const page = await context.newPage();
    await page.goto(`${env.baseUrl()}/console`);
    return new URL(page.url()).pathname === '/console/sign-in';
  }

  return { shot, noJs, askForLink, linkIn, signIn, forgedPost, isSignedOut, seriousViolations: seriousAxeViolations };
}
