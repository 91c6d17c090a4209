import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { expect } from 'chai';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { webhooksBundle } from '../support/delivery-runs';
import { historyFromJson } from '../support/history-json';
import { HISTORIES_DIR, RECORDED_SCENARIOS, recordDeliveryHistories } from '../support/delivery-histories';
import { startTimeSkipping } from '../support/temporal';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { localWebhookConfig } from '../support/webhooks';
import { expectEveryHistoryReplays } from '../support/replay';

/**
 * Determinism in CI: recorded histories of the delivery workflow must replay against the current bundle. A change to
 * the workflow's commands (activity order, timers, search attribute upserts) without versioning (`patched`) fails here.
 */
describe('webhookDeliveryWorkflow replays its recorded histories', function () {
  this.timeout(180_000);

  if (process.env.RECORD_HISTORIES === '1') {
    let env: TestWorkflowEnvironment | undefined;
    let receiver: WebhookReceiver | undefined;
    before(async () => {
      env = await startTimeSkipping();
      receiver = await startWebhookReceiver();
      await recordDeliveryHistories(env, receiver, localWebhookConfig());
    });
    after(async () => {
      await receiver?.close();
      await env?.teardown();
    });
  }

  const jsonIn = (dir: string) => readdirSync(dir).filter((name) => name.endsWith('.json'));
  const files = () => jsonIn(HISTORIES_DIR);
  /** Histories of runs started before the starter set the search attributes: the workflow set them (kept for replay). */
  const startedWithoutAttributes = join(HISTORIES_DIR, 'delivery-started-without-attributes');
  /** Histories of runs from before attempts were local activities: each attempt an activity task (kept for replay). */
  const attemptsAsActivityTasks = join(HISTORIES_DIR, 'attempts-as-activity-tasks');
  /** Histories of runs from before Retry now: no patch marker, each wait a plain timer (kept for replay). */
  const beforeRetryNow = join(HISTORIES_DIR, 'before-retry-now');

  it('has a history for every way a run ends', () => {
    expect(files().map((name) => basename(name, '.json'))).to.include.members([...RECORDED_SCENARIOS]);
  });

  it('replays every recorded history without a nondeterminism error', async () => {
    const histories = [HISTORIES_DIR, startedWithoutAttributes, attemptsAsActivityTasks, beforeRetryNow].flatMap(
      (dir) =>
        jsonIn(dir).map((name) => ({
          workflowId: `${basename(dir)}/${basename(name, '.json')}`,
          history: historyFromJson(readFileSync(join(dir, name), 'utf8')),
        })),
    );
    expect(histories.length).to.be.at.least(4 * (RECORDED_SCENARIOS.length - 1));
    await expectEveryHistoryReplays(await webhooksBundle(), histories);
  });
});
