/**
 * The compiled build (`npm run build`: tsc -p tsconfig.build.json into dist/) is what production runs: the compiled API
 * serves /healthz and finds docs/*.md from dist, the compiled webhooks worker bundles its workflows from dist and
 * answers the diagnostic probe, and the compiled migrate script sees the database as up to date (migrations keep
 * their recorded .ts names). The build is incremental, so it costs seconds when little changed.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { TASK_QUEUES, workflowIds } from '../../core/temporal/names';
import { diagnosticProbeWorkflow } from '../../workflows/diagnostics';
import { testEnv } from '../support/env';
import { killGroup } from '../support/processes';
import { startApi, startWebhooksWorker, type ApiProcess, type ServiceProcess } from '../support/service-processes';
import { DEV_SERVER_NAMESPACES, startDevServer } from '../support/temporal';

const ROOT = path.resolve(__dirname, '..', '..');
const run = promisify(execFile);

describe('compiled build (dist/)', function () {
  this.timeout(180_000);
  let temporal: TestWorkflowEnvironment;
  let api: ApiProcess | undefined;
  let worker: ServiceProcess | undefined;
  const namespace = DEV_SERVER_NAMESPACES[0];

  before(async () => {
    const [, built] = await Promise.all([
      startDevServer().then((env) => (temporal = env)),
      run(path.join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.build.json'], { cwd: ROOT }),
    ]);
    expect(built.stderr).to.equal('');
  });
  after(async () => {
    killGroup(api);
    killGroup(worker);
    await temporal?.teardown();
  });

  it('runs the migrations from dist under their recorded names: nothing left to apply', async () => {
    const env = { ...process.env, DATABASE_URL: testEnv.databaseUrl };
    const { stdout } = await run(process.execPath, ['dist/scripts/migrate.js'], { cwd: ROOT, env });
    expect(stdout).to.match(/nothing to apply/);
  });

  it('starts the compiled API, which answers /healthz and serves the guides from docs/', async () => {
    api = await startApi(
      {
        API_MODE: 'production',
        DATABASE_URL: testEnv.databaseUrl,
        REDIS_URL: testEnv.redisUrl,
        TEMPORAL_ADDRESS: temporal.address,
        TEMPORAL_NAMESPACE: namespace,
      },
      'dist/api/server.js',
    );
    const health = await fetch(`${api.baseUrl}/healthz`);
    expect(health.status, await health.text()).to.equal(200);
    const guide = await fetch(`${api.baseUrl}/docs/`);
    expect(guide.status).to.equal(200);
    expect(await guide.text()).to.contain('<html');
  });

  it('starts the compiled webhooks worker, which bundles its workflows from dist and serves the probe', async () => {
    worker = await startWebhooksWorker(
      {
        TEMPORAL_ADDRESS: temporal.address,
        WORKER_MODES: 'production',
        PRODUCTION_TEMPORAL_NAMESPACE: namespace,
        PRODUCTION_DATABASE_URL: testEnv.databaseUrl,
      },
      'dist/workers/webhooks.js',
    );
    const client = new Client({ connection: temporal.connection, namespace });
    const { databaseTime } = await client.workflow.execute(diagnosticProbeWorkflow, {
      taskQueue: TASK_QUEUES.webhooks,
      workflowId: workflowIds.diagnosticProbe(randomUUID()),
      args: [randomUUID()],
    });
    expect(Date.parse(databaseTime)).to.be.closeTo(Date.now(), 60_000);
  });
});
