/**
 * The client guides in a real browser: the index, the event catalogue and the lifecycle's
 * Mermaid diagram drawn as SVG from this host's own copy of the bundle (nothing fetched from anywhere else), and the
 * same diagram read as text with JavaScript off. Screenshots land in test-artifacts/docs/ (git-ignored).
 */
import { expect } from 'chai';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { EVENT_TYPES } from '../../core/events/outbox';
import { PROJECT_ROOT } from '../../core/platform/project-root';
import { startTestServer, type TestServer } from '../support/app';
import { withBrowser } from '../support/browser';

const SHOTS = path.join(PROJECT_ROOT, 'test-artifacts', 'docs');

describe('The client guides in a real browser', function () {
  this.timeout(120_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ mode: 'sandbox' });
    await mkdir(SHOTS, { recursive: true });
  });
  after(async () => {
    await server.close();
  });

  /** A page of `browser` that records every request off this host and every script error. */
  async function openPage(browser: Browser, javaScriptEnabled = true) {
    const context = await browser.newContext({ javaScriptEnabled, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const offHost: string[] = [];
    const errors: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(server.baseUrl) && !r.url().startsWith('data:')) offHost.push(r.url());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    return { page, offHost, errors };
  }

  const shot = (page: Page, name: string, fullPage = false) =>
    page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage });

  it('the index groups the client guides, with no operators’ guide', async () => {
    await withBrowser(async (browser) => {
      const { page, offHost, errors } = await openPage(browser);
      await page.goto(`${server.baseUrl}/docs/`);
      await page.getByRole('heading', { name: 'Client Public API guides' }).waitFor();
      for (const section of ['Start here', 'Working with the API', 'Debts', 'Events and webhooks']) {
        expect(await page.locator('main h2', { hasText: section }).count(), section).to.equal(1);
      }
      expect(await page.locator('main a', { hasText: 'Event catalogue' }).count()).to.equal(1);
      expect(await page.locator('a[href="/docs/architecture"]').count()).to.equal(0);
      await shot(page, 'index', true);
      expect(offHost).to.deep.equal([]);
      expect(errors).to.deep.equal([]);
    });
  });

  it('the lifecycle’s Mermaid diagram is drawn as SVG from this host’s bundle', async () => {
    await withBrowser(async (browser) => {
      const { page, offHost, errors } = await openPage(browser);
      await page.goto(`${server.baseUrl}/docs/lifecycle`);
      // Two diagrams: the moves while a debt is open, and how it ends.
      const diagrams = page.locator('pre.mermaid');
      expect(await diagrams.count()).to.equal(2);
      for (const index of [0, 1]) await diagrams.nth(index).locator('svg').waitFor({ timeout: 30_000 });
      const svgs = page.locator('pre.mermaid svg');
      // Drawn, not merely inserted: the states are laid out as text of the SVGs, at a readable size.
      const states = ['PendingAssignment', 'Accepted', 'Active', 'InArrears', 'Disputed', 'Settled', 'WrittenOff'];
      for (const state of states) {
        expect(await svgs.locator('text, foreignObject', { hasText: state }).count(), state).to.be.greaterThan(0);
      }
      const box = await svgs.first().boundingBox();
      expect(box?.width ?? 0).to.be.greaterThan(300);
      expect(box?.height ?? 0).to.be.greaterThan(300);
      expect(await page.locator('pre.mermaid', { hasText: '-->' }).count()).to.equal(0);
      await page.locator('#states-and-moves').scrollIntoViewIfNeeded();
      await shot(page, 'lifecycle-diagram');
      await diagrams.first().screenshot({ path: path.join(SHOTS, 'lifecycle-diagram-open.png') });
      await diagrams.nth(1).screenshot({ path: path.join(SHOTS, 'lifecycle-diagram-ends.png') });
      expect(offHost).to.deep.equal([]);
      expect(errors).to.deep.equal([]);
    });
  });

  it('with JavaScript off, the diagram’s source reads as text', async () => {
    await withBrowser(async (browser) => {
      const { page, offHost } = await openPage(browser, false);
      await page.goto(`${server.baseUrl}/docs/lifecycle`);
      const source = page.locator('pre.mermaid').first();
      expect(await source.innerText()).to.contain('PendingAssignment --> Accepted: accepted (debt.accepted)');
      expect(await page.locator('pre.mermaid svg').count()).to.equal(0);
      await page.locator('#states-and-moves').scrollIntoViewIfNeeded();
      await shot(page, 'lifecycle-no-javascript');
      expect(offHost).to.deep.equal([]);
    });
  });

  it('the event catalogue shows every event type with its example payload', async () => {
    await withBrowser(async (browser) => {
      const { page, offHost, errors } = await openPage(browser);
      await page.goto(`${server.baseUrl}/docs/events`);
      await page.getByRole('heading', { name: 'Event catalogue' }).waitFor();
      for (const type of EVENT_TYPES) {
        const heading = page.locator(`h2#${type.replace('.', '-')}`);
        expect(await heading.innerText(), type).to.equal(type);
        const example = heading.locator('xpath=following-sibling::pre[1]');
        expect(await example.innerText(), type).to.contain(`"type": "${type}"`);
      }
      await shot(page, 'events');
      await page.locator('#payment-received').scrollIntoViewIfNeeded();
      await shot(page, 'events-payment-received');
      expect(offHost).to.deep.equal([]);
      expect(errors).to.deep.equal([]);
    });
  });

  it('the forbidden page says where keys come from', async () => {
    await withBrowser(async (browser) => {
      const { page } = await openPage(browser);
      await page.goto(`${server.baseUrl}/docs/errors/forbidden`);
      await page.getByRole('heading', { name: 'Where keys come from' }).waitFor();
      expect(await page.locator('main').innerText()).to.contain('/sandbox/signup');
      await shot(page, 'forbidden', true);
    });
  });
});
