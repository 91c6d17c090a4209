/**
 * The console's Placements page in Chromium against the real app, database, document store and a placement worker on
 * the shared Temporal stack: a file with some bad rows uploaded from the page (the plain file input), its progress bar
 * caught mid-import (the organisation's pace made slow: two rows a chunk, one row a second) and moved by the page's
 * script without a reload (with JavaScript off, the page refreshes itself), then the outcome with the rows not
 * imported and the download of the failed rows, which a viewer is not offered. Screenshots at 1280 and 360 px
 * (test-artifacts/console/placements-*); axe-core on the upload and the errors page.
 */
import { expect } from 'chai';
import { mkdir, readFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { Worker } from '@temporalio/worker';
import type { Page } from 'playwright-core';
import { createPlacementActivities } from '../../activities/placements';
import { createDebtRowChecker } from '../../api/http/debt-row-check';
import { createOrganization } from '../../core/access/organizations';
import { createPlacementRuns } from '../../core/placements/placement-runs';
import { NAMESPACES } from '../../core/temporal/names';
import { startTestServer, testDocumentStore, type TestServer } from '../support/app';
import { withBrowser } from '../support/browser';
import { CONSOLE_SHOTS, consoleBrowser, newStaffUser } from '../support/console-browser';
import { lifecycleBundle } from '../support/lifecycle-histories';
import { testLifecycle } from '../support/lifecycle-stack';
import { startMailSink, type MailSink } from '../support/mail-sink';
import { goodRows, PLACEMENT_HEADER } from '../support/placements';
import { testDb } from '../support/resources';
import { uniqueTaskQueue } from '../support/temporal';
import { createMailer, type Mailer } from '../../core/notifications/mail';

const NARROW = { width: 360, height: 800 };
const WIDE = { width: 1280, height: 900 };

describe('Console: Placements page in a real browser, with a placement worker', function () {
  this.timeout(240_000);
  let sink: MailSink;
  let mailer: Mailer;
  let server: TestServer;
  let worker: Worker;
  let running: Promise<void>;
  let organizationId: string;
  const { shot, noJs, signIn, seriousViolations } = consoleBrowser({ baseUrl: () => server.baseUrl, sink: () => sink });

  before(async () => {
    await mkdir(CONSOLE_SHOTS, { recursive: true });
    const stack = await testLifecycle();
    const taskQueue = uniqueTaskQueue('placements-console');
    worker = await Worker.create({
      connection: stack.env.nativeConnection,
      namespace: NAMESPACES.production,
      taskQueue,
      workflowBundle: await lifecycleBundle(),
      // Two rows a chunk: with the organisation's pace of one row a second, each chunk is followed by a 2 s pause.
      activities: createPlacementActivities({
        db: testDb(),
        store: testDocumentStore('production'),
        checkRow: createDebtRowChecker(),
        chunkRows: 2,
      }),
    });
    running = worker.run();
    sink = await startMailSink();
    mailer = createMailer({ smtpUrl: sink.smtpUrl, from: 'Client console <console@example.test>' });
    server = await startTestServer({
      deps: { mailer, placementRuns: createPlacementRuns({ client: stack.client('production'), taskQueue }) },
      env: { SIGN_IN_REQUESTS_PER_HOUR: '1000', SIGN_IN_REQUESTS_PER_ADDRESS_PER_HOUR: '1000' },
    });
    organizationId = (await createOrganization(testDb(), { name: 'Placing Lending', mode: 'production' })).id;
    await testDb().raw('update organizations set placement_rows_per_second = 1 where id = ?', [organizationId]);
  });
  after(async () => {
    await server?.close();
    mailer?.close();
    await sink?.stop();
    worker?.shutdown();
    await running;
  });

  /** The figures the page shows now. */
  const figures = (page: Page) =>
    page.evaluate(() => {
      const bar = document.getElementById('placement-progress-bar') as HTMLProgressElement;
      // No helper function in here: the page runs this code as it is, without the test's compiled helpers.
      return {
        value: bar.value,
        max: bar.max,
        imported: Number(document.getElementById('placement-imported')?.textContent ?? ''),
        rate: document.getElementById('placement-rate')?.textContent ?? '',
      };
    });

  it('uploads a file with bad rows, shows its progress mid-import without reloading, then the rows not imported', async () => {
    const email = await newStaffUser(organizationId, 'admin');
    const prefix = `PL${randomUUID().slice(0, 6)}`;
    const rows = goodRows(prefix, 16);
    rows.splice(3, 0, `${prefix}-bad1,0,AUD,${prefix}-D-bad1,Ann,Lee,bad1@example.com`); // row 5: no principal
    rows.splice(9, 0, `${prefix}-bad2,12,AUD,${prefix}-D-bad2,Ann,,not-an-email`); // row 11: no last name, no email
    const file = `${PLACEMENT_HEADER}\n${rows.join('\n')}\n`;

    await withBrowser(async (browser) => {
      const context = await browser.newContext({ viewport: WIDE });
      const page = await signIn(context, email);
      const withoutJs = await signIn(await noJs(browser), email);
      await page.getByRole('link', { name: 'Placements' }).click();
      await page.getByRole('heading', { name: 'Upload a placement file' }).waitFor();
      await page
        .getByLabel('Placement file', { exact: true })
        .setInputFiles({ name: 'december.csv', mimeType: 'text/csv', buffer: Buffer.from(file) });
      await shot(page, 'placements-upload');
      await page.setViewportSize(NARROW);
      await shot(page, 'placements-upload-360');
      await page.setViewportSize(WIDE);

      await page.getByRole('button', { name: 'Upload' }).click();
      await page.waitForURL(/\/console\/placements\/[0-9a-f-]{36}$/);
      const placementUrl = page.url();
      // Mid-import, as the page's script has moved it: some rows imported, not all done, the page never reloaded.
      await page.evaluate(() => ((window as unknown as { unreloaded: boolean }).unreloaded = true));
      const midImport = () =>
        page.waitForFunction(
          () => {
            const bar = document.getElementById('placement-progress-bar') as HTMLProgressElement | null;
            const imported = Number(document.getElementById('placement-imported')?.textContent ?? '0');
            return bar !== null && imported > 0 && bar.max > 1 && bar.value < bar.max;
          },
          undefined,
          { timeout: 60_000, polling: 100 },
        );
      await midImport();
      const mid = await figures(page);
      expect(mid.max).to.equal(18);
      expect(mid.rate).to.match(/rows a second/);
      expect(await page.evaluate(() => (window as unknown as { unreloaded?: boolean }).unreloaded)).to.equal(true);
      await shot(page, 'placements-progress');
      await page.setViewportSize(NARROW);
      await midImport();
      await shot(page, 'placements-progress-360');
      // Without JavaScript the running page refreshes itself (its <meta http-equiv="refresh">, inside <noscript>).
      await withoutJs.goto(placementUrl);
      const refreshed = withoutJs.waitForEvent('framenavigated', { timeout: 10_000 });
      expect((await refreshed).url()).to.equal(placementUrl);
      await page.setViewportSize(WIDE);

      // Finished, the script reloads the page: the outcome and the rows not imported.
      await page.getByRole('heading', { name: 'Rows not imported' }).waitFor({ timeout: 90_000 });
      await page.getByText('Completed with errors').first().waitFor();
      const table = await page.getByRole('region', { name: 'Row problems table' }).innerText();
      expect(table).to.include('originalPrincipal').and.include('debtorEmail');
      expect(await figures(page)).to.include({ value: 18, max: 18, imported: 16 });
      await shot(page, 'placements-errors');
      await page.setViewportSize(NARROW);
      await shot(page, 'placements-errors-360');

      const download = page.waitForEvent('download');
      await page.getByRole('link', { name: 'Download the failed rows' }).click();
      const failed = await readFile(await (await download).path(), 'utf8');
      expect(failed).to.equal(`${PLACEMENT_HEADER}\n${rows[3]}\n${rows[9]}\n`);

      // A viewer reads the problems but is not offered the failed rows (debtor data as uploaded).
      const viewerContext = await browser.newContext({ viewport: WIDE });
      const viewerPage = await signIn(viewerContext, await newStaffUser(organizationId, 'viewer'));
      await viewerPage.goto(placementUrl);
      await viewerPage.getByText('an owner or an admin can download them').waitFor();
      expect(await viewerPage.getByRole('link', { name: 'Download the failed rows' }).count()).to.equal(0);
      expect(await viewerPage.getByRole('link', { name: 'Download the problems' }).count()).to.equal(1);
      await shot(viewerPage, 'placements-errors-viewer');
      await viewerPage.setViewportSize(NARROW);
      await shot(viewerPage, 'placements-errors-viewer-360');

      // axe-core, in a context that lets the test inject it (the pages allow only their own script).
      const axeContext = await browser.newContext({ bypassCSP: true, viewport: WIDE });
      const axePage = await signIn(axeContext, email);
      for (const path of ['/console/placements', new URL(placementUrl).pathname]) {
        await axePage.goto(`${server.baseUrl}${path}`);
        expect(await seriousViolations(axePage), path).to.deep.equal([]);
      }
    });
  });
});
