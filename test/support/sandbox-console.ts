/**
 * The sandbox host's console for browser tests: a sandbox-mode app with the real lifecycle worker (simulations),
 * a real sandbox reset worker (workflow and activities on their own queue, so "Reset sandbox now" really resets),
 * the mail sink (sign-in links), and helpers to sign up from the form and read the key it shows once.
 */
import { expect } from 'chai';
import { Worker } from '@temporalio/worker';
import type { BrowserContext, Page } from 'playwright-core';
import { createSandboxResetActivities } from '../../activities/sandbox-reset';
import { createMailer, type Mailer } from '../../core/notifications/mail';
import { createSandboxResets } from '../../core/sandbox/resets';
import { NAMESPACES, TASK_QUEUES } from '../../core/temporal/names';
import { startTestServer, testDocumentStore, type TestServer } from './app';
import { callerFor, type Caller } from './debt-api';
import { testLifecycle } from './lifecycle-stack';
import { startMailSink, type Mailbox, type MailSink } from './mail-sink';
import { SIGNUP_CONFIRM_PATH } from '../../core/staff/signup-requests';
import { testDb } from './resources';
import { bundleWorkflows, uniqueTaskQueue } from './temporal';

export interface SandboxConsole {
  server: TestServer;
  sink: MailSink;
  stop(): Promise<void>;
}

/** Starts the stack; `env` adds to the server's (e.g. a sign-up limit). */
export async function startSandboxConsole(env: Record<string, string> = {}): Promise<SandboxConsole> {
  const stack = await testLifecycle();
  const client = stack.client('sandbox');
  const queue = uniqueTaskQueue(TASK_QUEUES.sandbox);
  const worker = await Worker.create({
    connection: stack.env.nativeConnection,
    namespace: NAMESPACES.sandbox,
    taskQueue: queue,
    workflowBundle: await bundleWorkflows(require.resolve('../../workflows/bundles/sandbox')),
    activities: createSandboxResetActivities({
      db: testDb(),
      client,
      lifecycleTaskQueue: stack.taskQueue,
      documents: testDocumentStore('sandbox'),
    }),
    shutdownGraceTime: '100ms',
  });
  const running = worker.run();
  const sink = await startMailSink();
  const mailer: Mailer = createMailer({ smtpUrl: sink.smtpUrl, from: 'Client console <console@example.test>' });
  const server = await startTestServer({
    mode: 'sandbox',
    deps: { mailer, sandboxResets: createSandboxResets({ client, taskQueue: queue }) },
    env: {
      SIGN_IN_REQUESTS_PER_HOUR: '1000',
      SIGN_IN_REQUESTS_PER_ADDRESS_PER_HOUR: '1000',
      SANDBOX_SIGNUPS_PER_HOUR: '1000',
      ...env,
    },
  });
  return {
    server,
    sink,
    async stop() {
      await server.close();
      mailer.close();
      await sink.stop();
      worker.shutdown();
      await running;
    },
  };
}

export interface FormSignup {
  page: Page;
  organizationId: string;
  key: string;
  api: Caller;
}

/**
 * Signs up on the form, then follows the confirmation link mailed to the address (asserting "check your email", then
 * the 201 and the key shown); returns the signed-in page and the key's caller.
 */
export async function signUpFromForm(
  context: BrowserContext,
  stack: { server: { baseUrl: string }; sink: Mailbox },
  values: { organizationName?: string; email: string },
): Promise<FormSignup> {
  const baseUrl = stack.server.baseUrl;
  const page = await context.newPage();
  const mailsBefore = (await stack.sink.mailTo(values.email)).length;
  await page.goto(`${baseUrl}/console/sign-up`);
  if (values.organizationName) await page.getByLabel('Organisation name').fill(values.organizationName);
  await page.getByLabel('Email address').fill(values.email);
  await page.getByRole('button', { name: 'Create my sandbox' }).click();
  await page.getByRole('heading', { name: 'Check your email' }).waitFor();
  const mail = await stack.sink.nthMailTo(values.email, mailsBefore + 1);
  expect(mail.subject).to.equal('Confirm your sandbox');
  const link = new RegExp(`${SIGNUP_CONFIRM_PATH}\\?token=[A-Za-z0-9_-]{43}`).exec(mail.text)![0];
  await page.goto(`${baseUrl}${link}`);
  const answer = page.waitForResponse((r) => r.request().method() === 'POST');
  await page.getByRole('button', { name: 'Create my sandbox' }).click();
  expect((await answer).status()).to.equal(201);
  await page.getByRole('heading', { name: 'Welcome to the sandbox' }).waitFor();
  const key = (await page.locator('#secret').innerText()).trim();
  expect(key).to.match(/^ak_test_[A-Za-z0-9]{32,}$/);
  const user = await testDb()('staff_users').where({ email: values.email.toLowerCase() }).first('organization_id');
  return {
    page,
    organizationId: (user as { organization_id: string }).organization_id,
    key,
    api: callerFor(baseUrl, { headers: { authorization: `Bearer ${key}` } }),
  };
}
