/**
 * docker-compose.yml must describe what the code really runs: its commands name files and npm scripts that exist,
 * every variable it sets for an app container is one that core/config.ts reads (a typo would be silently
 * ignored at run time and the default used instead), and its namespaces, task queues and search attributes are those
 * of the names module (core/temporal/names.ts).
 */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { parse } from 'yaml';
import { FAIRNESS_DYNAMIC_CONFIG } from '../../core/temporal/fairness';
import { NAMESPACES, SEARCH_ATTRIBUTES, TASK_QUEUES } from '../../core/temporal/names';

const ROOT = path.resolve(__dirname, '..', '..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

interface Service {
  build?: unknown;
  image?: string;
  command?: string | string[];
  environment?: Record<string, string | number | boolean | null> | string[];
  volumes?: string[];
  depends_on?: Record<string, unknown>;
}

const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, Service> };
const pkg = JSON.parse(read('package.json')) as {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
};

/**
 * Variable names in the `cleanEnv` spec of `functionName` in core/platform/config.ts, read from the syntax tree so
 * that spreads of shared spec objects (`...WEBHOOK_ENV`, from webhook-config.ts) count too.
 */
function envNamesReadBy(functionName: string): string[] {
  const objects = new Map<string, ts.ObjectLiteralExpression>();
  let fn: ts.FunctionDeclaration | undefined;
  // config.ts and worker-config.ts load; the shared spec objects they spread live in the modules they read them from.
  for (const file of [
    'core/platform/config.ts',
    'core/platform/worker-config.ts',
    'core/platform/config-env.ts',
    'core/platform/console-config.ts',
    'core/platform/webhook-config.ts',
    'core/platform/document-config.ts',
    'core/platform/payment-config.ts',
    'core/platform/portal-config.ts',
  ]) {
    const source = ts.createSourceFile(file, read(file), ts.ScriptTarget.Latest, true);
    for (const statement of source.statements) {
      if (ts.isFunctionDeclaration(statement) && statement.name?.text === functionName) fn = statement;
      if (!ts.isVariableStatement(statement)) continue;
      for (const decl of statement.declarationList.declarations) {
        if (ts.isIdentifier(decl.name) && decl.initializer && ts.isObjectLiteralExpression(decl.initializer)) {
          objects.set(decl.name.text, decl.initializer);
        }
      }
    }
  }
  if (!fn) throw new Error(`core/platform has no function ${functionName}`);
  const names: string[] = [];
  const collect = (spec: ts.ObjectLiteralExpression): void => {
    for (const prop of spec.properties) {
      if (ts.isPropertyAssignment(prop) && (ts.isIdentifier(prop.name) || ts.isStringLiteral(prop.name))) {
        names.push(prop.name.text);
      } else if (ts.isSpreadAssignment(prop) && ts.isIdentifier(prop.expression)) {
        const spread = objects.get(prop.expression.text);
        if (!spread) throw new Error(`cannot resolve ...${prop.expression.text} in core/platform`);
        collect(spread);
      } else {
        throw new Error(`unexpected entry in the cleanEnv spec of ${functionName}: ${prop.getText()}`);
      }
    }
  };
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'cleanEnv') {
      const spec = node.arguments[1];
      if (spec && ts.isObjectLiteralExpression(spec)) collect(spec);
    }
    ts.forEachChild(node, visit);
  };
  visit(fn);
  return names;
}

function environment(service: Service): Record<string, string> {
  const env = service.environment ?? {};
  if (Array.isArray(env)) return Object.fromEntries(env.map((e) => [e.split('=')[0] ?? e, e.split('=')[1] ?? '']));
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v ?? '')]));
}

function commandOf(name: string): string[] {
  const { command } = compose.services[name] ?? {};
  if (command === undefined) throw new Error(`service ${name} has no command`);
  return Array.isArray(command) ? command : command.split(/\s+/);
}

/** The shell script of the one-shot temporal-setup service. */
function temporalSetupScript(): string {
  const { command } = compose.services['temporal-setup'] ?? {};
  return Array.isArray(command) ? command.join('\n') : (command ?? '');
}

const API_SERVICES = { 'api-production': 'production', 'api-sandbox': 'sandbox' } as const;
const MIGRATE_SERVICES = { 'migrate-production': 'production', 'migrate-sandbox': 'sandbox' } as const;
/** One worker service per task queue, named after it. */
const WORKER_SERVICES = Object.fromEntries(Object.values(TASK_QUEUES).map((queue) => [`worker-${queue}`, queue]));
const APP_SERVICES = [...Object.keys(API_SERVICES), ...Object.keys(MIGRATE_SERVICES), ...Object.keys(WORKER_SERVICES)];

describe('docker-compose.yml', function () {
  const configVars = envNamesReadBy('loadConfig');
  const workerVars = envNamesReadBy('loadWorkerConfig');

  it('reads the variable names of both loaders from core/config.ts', function () {
    expect(configVars).to.include.members(['API_MODE', 'PORT', 'DATABASE_URL', 'TEMPORAL_NAMESPACE', 'REDIS_URL']);
    expect(workerVars).to.include.members(['WORKER_MODES', 'PRODUCTION_DATABASE_URL', 'SANDBOX_TEMPORAL_NAMESPACE']);
  });

  it('documents every variable of both loaders in docs/operators/configuration.md', function () {
    const guide = read('docs/operators/configuration.md');
    const undocumented = [...new Set([...configVars, ...workerVars])].filter((v) => !guide.includes(`| \`${v}\` |`));
    expect(undocumented).to.deep.equal([]);
  });

  it('has every service of the production-like topology', function () {
    const infrastructure = ['postgres', 'redis', 'temporal-schema', 'temporal', 'temporal-ui', 'temporal-setup'];
    expect(Object.keys(compose.services)).to.include.members([...infrastructure, ...APP_SERVICES]);
    expect(environment(compose.services.temporal ?? {}).DB).to.equal('postgres12');
  });

  it('runs the Temporal server (not the retired auto-setup image) with the schema tool of the same version', function () {
    const [, version] = /^temporalio\/server:(\d+\.\d+\.\d+)$/.exec(compose.services.temporal?.image ?? '') ?? [];
    expect(version, 'temporalio/server:<version>').to.be.a('string');
    expect(compose.services['temporal-schema']?.image).to.equal(`temporalio/admin-tools:${version}`);
    expect(compose.services['temporal-setup']?.image).to.equal(`temporalio/admin-tools:${version}`);
    expect(compose.services.temporal?.depends_on).to.have.property('temporal-schema');
  });

  it('runs compiled app commands whose sources exist and that a package.json script also runs', function () {
    expect(pkg.dependencies, 'nothing runs TypeScript at run time').to.not.have.property('tsx');
    for (const name of APP_SERVICES) {
      const command = commandOf(name);
      expect(command[0], `${name}: command`).to.equal('node');
      const [, entry] = /^dist\/(.+)\.js$/.exec(command[1] ?? '') ?? [];
      expect(entry, `${name}: runs a compiled entry point in dist/`).to.be.a('string');
      expect(fs.existsSync(path.join(ROOT, `${entry}.ts`)), `${name}: ${entry}.ts exists`).to.equal(true);
      const scripts = Object.values(pkg.scripts);
      expect(
        scripts.some((s) => s === `bash scripts/compiled.sh ${entry}`),
        `${name}: a package.json script runs ${entry} compiled`,
      ).to.equal(true);
    }
  });

  it('sets only variables that the config of each app reads', function () {
    for (const name of [...Object.keys(API_SERVICES), ...Object.keys(MIGRATE_SERVICES)]) {
      const unknown = Object.keys(environment(compose.services[name] ?? {})).filter((v) => !configVars.includes(v));
      expect(unknown, `${name}: variables loadConfig does not read`).to.deep.equal([]);
    }
    for (const name of Object.keys(WORKER_SERVICES)) {
      const unknown = Object.keys(environment(compose.services[name] ?? {})).filter((v) => !workerVars.includes(v));
      expect(unknown, `${name}: variables loadWorkerConfig does not read`).to.deep.equal([]);
    }
  });

  it('gives each API and migrate job its own mode, database and namespace', function () {
    for (const [name, mode] of Object.entries({ ...API_SERVICES, ...MIGRATE_SERVICES })) {
      const env = environment(compose.services[name] ?? {});
      expect(env.API_MODE, name).to.equal(mode);
      expect(env.DATABASE_URL, name).to.match(new RegExp(`/client_api_${mode}$`));
    }
    for (const [name, mode] of Object.entries(API_SERVICES)) {
      expect(environment(compose.services[name] ?? {}).TEMPORAL_NAMESPACE, name).to.equal(NAMESPACES[mode]);
    }
    expect(environment(compose.services[`worker-${TASK_QUEUES.sandbox}`] ?? {}).WORKER_MODES).to.equal('sandbox');
  });

  it('runs one worker service per task queue of the names module, each on dist/workers/<queue>.js', function () {
    const workerServices = Object.keys(compose.services).filter((name) => name.startsWith('worker-'));
    expect(workerServices).to.have.members(Object.keys(WORKER_SERVICES));
    for (const [name, queue] of Object.entries(WORKER_SERVICES)) {
      expect(commandOf(name)[1], name).to.equal(`dist/workers/${queue}.js`);
    }
  });

  it('uses the namespaces of the names module for workers, APIs and the Temporal setup', function () {
    for (const name of Object.keys(WORKER_SERVICES)) {
      const env = environment(compose.services[name] ?? {});
      expect(env.PRODUCTION_TEMPORAL_NAMESPACE, name).to.equal(NAMESPACES.production);
      expect(env.SANDBOX_TEMPORAL_NAMESPACE, name).to.equal(NAMESPACES.sandbox);
    }
    const setup = temporalSetupScript();
    const created = /for ns in ([^;]+);/.exec(setup)?.[1]?.trim().split(/\s+/);
    expect(created, 'the namespaces temporal-setup creates').to.have.members(Object.values(NAMESPACES));
  });

  it("gives the Temporal server the dynamic configuration of the code's task queue fairness", function () {
    const temporal = compose.services.temporal!;
    const file = environment(temporal).DYNAMIC_CONFIG_FILE_PATH ?? '';
    const mount = (temporal.volumes ?? []).find((v) => v.split(':')[1]?.endsWith(file));
    expect(mount, `a volume mounted at …/${file}`).to.be.a('string');
    const config = parse(read(mount!.split(':')[0]!)) as Record<string, { value: unknown }[]>;
    const values = Object.fromEntries(Object.entries(config).map(([key, [first]]) => [key, first?.value]));
    expect(values).to.deep.equal(FAIRNESS_DYNAMIC_CONFIG);
  });

  it('registers exactly the search attributes of the names module, as keywords', function () {
    const setup = temporalSetupScript();
    const registered = [...setup.matchAll(/--name (\w+)/g)].map((match) => match[1]);
    expect(registered).to.have.members(SEARCH_ATTRIBUTES);
    expect(setup).to.match(/search-attribute create [^\n]*--type Keyword/);
  });

  it('builds the app services from a Dockerfile that compiles every folder their commands use', function () {
    const dockerfile = read('Dockerfile');
    // The project's one runtime line (scripts/lib/node.sh) in both stages, `engines` and `@types/node`.
    const line = /^NODE_LINE=(\d+)$/m.exec(read('scripts/lib/node.sh'))?.[1];
    expect(line, 'NODE_LINE in scripts/lib/node.sh').to.be.a('string');
    expect(dockerfile).to.match(new RegExp(`^FROM node:${line}-bookworm-slim AS build$`, 'm'));
    expect(dockerfile).to.match(new RegExp(`^FROM node:${line}-bookworm-slim$`, 'm'));
    const pkg = JSON.parse(read('package.json')) as {
      engines: { node: string };
      devDependencies: Record<string, string>;
    };
    expect(pkg.engines.node).to.equal(`>=${line}.11 <${Number(line) + 1}`);
    expect(pkg.devDependencies['@types/node']).to.match(new RegExp(`^\\^${line}\\.`));
    const [build = '', runtime = ''] = dockerfile.split(/^FROM .*$/m).slice(1);
    expect(build, 'a build stage').to.match(/^RUN npx tsc -p tsconfig\.build\.json$/m);
    expect(runtime, 'the runtime stage').to.match(/RUN npm install --omit=dev\b/);
    expect(runtime).to.match(/^COPY --from=build \/app\/dist \.\/dist$/m);
    expect(runtime).to.match(/^COPY docs \.\/docs$/m);
    for (const name of APP_SERVICES) {
      expect(compose.services[name]?.build, `${name} builds the Dockerfile`).to.equal('.');
      const folder = (commandOf(name)[1] ?? '').split('/')[1];
      expect(build, `${name}: the build stage copies ${folder}/`).to.match(new RegExp(`^COPY ${folder} `, 'm'));
    }
  });
});
