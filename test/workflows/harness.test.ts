import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createDiagnosticsActivities } from '../../activities/diagnostics';
import { createDb, type Db } from '../../core/platform/db';
import { checkTemporal, closeTemporalClient, createTemporalClient } from '../../core/temporal/connection';
import { SEARCH_ATTRIBUTE_KEYS, SEARCH_ATTRIBUTES, workflowIds } from '../../core/temporal/names';
import { diagnosticProbeStatusQuery, diagnosticProbeWorkflow } from '../../workflows/diagnostics';
import { testEnv } from '../support/env';
import {
  DEV_SERVER_NAMESPACES,
  bundleWorkflows,
  startDevServer,
  startTimeSkipping,
  uniqueTaskQueue,
} from '../support/temporal';
import { sleepWorkflow } from './fixtures/sleep-workflow';

const DAY_MS = 24 * 60 * 60 * 1000;
const KEYWORD = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;

async function expectOurSearchAttributes(env: TestWorkflowEnvironment, namespace: string): Promise<void> {
  const { customAttributes } = await env.connection.operatorService.listSearchAttributes({ namespace });
  for (const name of SEARCH_ATTRIBUTES) {
    expect(customAttributes?.[name], `${name} in ${namespace}`).to.equal(KEYWORD);
  }
}

describe('Temporal test harness', function () {
  this.timeout(120_000);

  describe('dev server (startDevServer)', () => {
    let env: TestWorkflowEnvironment;
    let db: Db;

    before(async () => {
      env = await startDevServer();
      db = createDb(testEnv.databaseUrl);
    });
    after(async () => {
      await db?.destroy();
      await env?.teardown();
    });

    it('creates one namespace per mode, each with our search attributes as Keyword', async () => {
      expect(env.namespace).to.equal(DEV_SERVER_NAMESPACES[0]);
      for (const namespace of DEV_SERVER_NAMESPACES) await expectOurSearchAttributes(env, namespace);
    });

    it('runs diagnosticProbeWorkflow on a real Worker whose activity reads the time from PostgreSQL', async () => {
      // Every time PostgreSQL sends back for `database_time`, seen on the activity's own knex instance.
      const databaseTimes: number[] = [];
      const onResponse = (response: { rows?: { database_time?: unknown }[] }) => {
        const value = response.rows?.[0]?.database_time;
        if (value instanceof Date) databaseTimes.push(value.getTime());
      };
      const clock = async () => {
        const { rows } = await db.raw<{ rows: { t: Date }[] }>('select clock_timestamp() as t');
        return rows[0]!.t.getTime();
      };
      db.on('query-response', onResponse);
      try {
        const taskQueue = uniqueTaskQueue('harness-probe');
        const worker = await Worker.create({
          connection: env.nativeConnection,
          namespace: env.namespace,
          taskQueue,
          workflowBundle: await bundleWorkflows(require.resolve('../../workflows/diagnostics')),
          activities: createDiagnosticsActivities({ db }),
        });
        const before = await clock();
        const { result, status } = await worker.runUntil(async () => {
          const handle = await env.client.workflow.start(diagnosticProbeWorkflow, {
            taskQueue,
            workflowId: workflowIds.diagnosticProbe(randomUUID()),
            args: [randomUUID()],
          });
          return { result: await handle.result(), status: await handle.query(diagnosticProbeStatusQuery) };
        });
        const after = await clock();

        expect(result.databaseTime).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
        const answered = Date.parse(result.databaseTime);
        expect(databaseTimes).to.deep.equal([answered]);
        expect(answered).to.be.within(before, after);
        expect(status).to.deep.equal({ phase: 'Completed', databaseTime: result.databaseTime });
      } finally {
        db.off('query-response', onResponse);
      }
    });

    it('checkTemporal resolves for each mode namespace and rejects for an unknown one', async () => {
      for (const namespace of DEV_SERVER_NAMESPACES) {
        const client = createTemporalClient(env.address, namespace);
        try {
          await checkTemporal(client);
        } finally {
          await closeTemporalClient(client);
        }
      }
      const stranger = createTemporalClient(env.address, 'no-such-namespace');
      try {
        const error = await checkTemporal(stranger).then(
          () => null,
          (err: unknown) => err,
        );
        expect(String(error)).to.match(/no-such-namespace/);
      } finally {
        await closeTemporalClient(stranger);
      }
    });

    it('checkTemporal rejects within its deadline when nothing listens', async () => {
      const client = createTemporalClient('127.0.0.1:1', DEV_SERVER_NAMESPACES[0]);
      const started = Date.now();
      try {
        const error = await checkTemporal(client, 500).then(
          () => null,
          (err: unknown) => err,
        );
        expect(error).to.be.instanceOf(Error);
        expect(Date.now() - started).to.be.below(1_000);
      } finally {
        await closeTemporalClient(client);
      }
    });
  });

  describe('time-skipping server (startTimeSkipping)', () => {
    let env: TestWorkflowEnvironment;

    before(async () => {
      env = await startTimeSkipping();
    });
    after(async () => {
      await env?.teardown();
    });

    // This server cannot list search attributes: a workflow run with all of ours shows they are registered.
    it('registers our search attributes: a workflow can carry each of them', async () => {
      const taskQueue = uniqueTaskQueue('harness-attributes');
      const keys = Object.values(SEARCH_ATTRIBUTE_KEYS);
      const worker = await Worker.create({
        connection: env.nativeConnection,
        taskQueue,
        workflowBundle: await bundleWorkflows(require.resolve('./fixtures/sleep-workflow')),
      });
      const workflowId = `attributes-${randomUUID()}`;
      await worker.runUntil(
        env.client.workflow.execute(sleepWorkflow, {
          taskQueue,
          workflowId,
          args: [1_000],
          typedSearchAttributes: keys.map((key) => ({ key, value: `${key.name}-value` })),
        }),
      );
      const { typedSearchAttributes } = await env.client.workflow.getHandle(workflowId).describe();
      for (const key of keys) expect(typedSearchAttributes.get(key), key.name).to.equal(`${key.name}-value`);
    });

    it('completes a workflow that sleeps 7 days in seconds, and the environment clock advances at least 7 days', async () => {
      const taskQueue = uniqueTaskQueue('harness-sleep');
      const workflowId = `sleep-${randomUUID()}`;
      const worker = await Worker.create({
        connection: env.nativeConnection,
        taskQueue,
        workflowBundle: await bundleWorkflows(require.resolve('./fixtures/sleep-workflow')),
      });
      const wallStart = Date.now();
      const clockStart = await env.currentTimeMs();
      const result = await worker.runUntil(
        env.client.workflow.execute(sleepWorkflow, {
          taskQueue,
          workflowId,
          args: [7 * DAY_MS],
        }),
      );
      const clockEnd = await env.currentTimeMs();
      const wallMs = Date.now() - wallStart;

      expect(clockEnd - clockStart).to.be.at.least(7 * DAY_MS);
      expect(result.wokeAtMs - result.startedAtMs).to.be.at.least(7 * DAY_MS);
      expect(wallMs).to.be.below(60_000);
      const description = await env.client.workflow.getHandle(workflowId).describe();
      expect(description.status.name).to.equal('COMPLETED');
      expect(description.closeTime!.getTime() - description.startTime.getTime()).to.be.at.least(7 * DAY_MS);
    });
  });
});
