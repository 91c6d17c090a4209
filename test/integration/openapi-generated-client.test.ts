/**
 * The served document is a contract a generator can use: openapi-typescript turns it into types with the resources
 * under their names, and code written against them type-checks (a Debt's `outstandingPrincipal` is a number) or fails
 * to (a misspelt field).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import ts from 'typescript';
import { startTestServer, type TestServer } from '../support/app';

const GENERATOR = path.resolve(__dirname, '..', '..', 'node_modules', '.bin', 'openapi-typescript');

/** tsc's diagnostics (as text) for `file` beside the generated `schema.ts`. */
function typeErrors(dir: string, file: string): string[] {
  const program = ts.createProgram([path.join(dir, file)], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: [],
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

describe('OpenAPI: a client generated from the document', () => {
  let server: TestServer;
  let dir: string;
  before(async () => {
    server = await startTestServer();
    dir = await mkdtemp(path.join(tmpdir(), 'openapi-client-'));
    const doc = await (await fetch(`${server.baseUrl}/openapi/v1.json`)).text();
    await writeFile(path.join(dir, 'openapi.json'), doc);
    await promisify(execFile)(GENERATOR, [path.join(dir, 'openapi.json'), '-o', path.join(dir, 'schema.ts')]);
  });
  after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('names the resources and each event, and code using them type-checks', async () => {
    await writeFile(
      path.join(dir, 'good.ts'),
      [
        "import type { components, operations, webhooks } from './schema.js';",
        "type Debt = components['schemas']['Debt'];",
        'const debt = {} as Debt;',
        'export const outstanding: number = debt.outstandingPrincipal;',
        "export const plan: components['schemas']['Plan'] | null = debt.plan;",
        "type Listed = operations['listDebts']['responses'][200]['content']['application/json'];",
        'export const first: Debt | undefined = ({} as Listed).data[0];',
        "type Paid = NonNullable<webhooks['payment.received']['post']['requestBody']>['content']['application/json'];",
        "export const payment: components['schemas']['Transaction'] = ({} as Paid).data.payment;",
        "export const kind: 'payment.received' = ({} as Paid).type;",
        "export const problem: components['schemas']['Problem']['title'] = 'invalid_request';",
        ...['Debtor', 'Organization', 'Branding', 'WebhookConfig', 'Delivery', 'Attempt', 'Event'].map(
          (name) => `export type ${name} = components['schemas']['${name}'];`,
        ),
      ].join('\n'),
    );
    expect(typeErrors(dir, 'good.ts')).to.deep.equal([]);
  });

  it('refuses a field the document does not have', async () => {
    await writeFile(
      path.join(dir, 'bad.ts'),
      [
        "import type { components } from './schema.js';",
        "export const wrong: number = ({} as components['schemas']['Debt']).outstandingPrincipl;",
      ].join('\n'),
    );
    const errors = typeErrors(dir, 'bad.ts');
    expect(errors).to.have.length(1);
    expect(errors[0]).to.contain("Property 'outstandingPrincipl' does not exist");
  });
});
