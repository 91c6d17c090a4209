/**
 * docker-compose.yml must describe what the code really runs: its commands name files and npm scripts that exist,
 * every variable it sets for an app container is one that core/config.ts reads (a typo would be silently
 * ignored at run time and the default used instead), and its namespaces, task queues and search attributes are those
 * of the names module (core/temporal/names.ts).
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { parse } from 'yaml';
import { FAIRNESS_DYNAMIC_CONFIG } from '../../core/temporal/fairness';
import { HISTORY_CACHE_DYNAMIC_CONFIG } from '../../core/temporal/history-cache';
import { NAMESPACES, SEARCH_ATTRIBUTES, TASK_QUEUES, WORKER_PROCESS_QUEUES } from '../../core/temporal/names';
import { loadConfig } from '../../core/platform/config';
import { loadWorkerConfig } from '../../core/platform/worker-config';

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
const WORKER_SERVICES = Object.fromEntries(WORKER_PROCESS_QUEUES.map((queue) => [`worker-${queue}`, queue]));
const APP_SERVICES = [...Object.keys(API_SERVICES), ...Object.keys(MIGRATE_SERVICES), ...Object.keys(WORKER_SERVICES)];

// API_PROCESSES is read by the API's entry point before its configuration (api/cluster.ts).
const configVars = [...envNamesReadBy('loadConfig'), 'API_PROCESSES'];
const workerVars = envNamesReadBy('loadWorkerConfig');

describe('docker-compose.yml', function () {
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
  });

  it("gives the Temporal server the production profile's PostgreSQL driver (pgx), for both of its stores", function () {
    // The profile's file is a Go template: its `{{ … }}` values are not YAML, the plugin names are plain lines.
    const plugins = [...read('ops/stage/temporal.yaml').matchAll(/^\s+pluginName: (\S+)$/gm)].map((m) => m[1]);
    expect(plugins).to.deep.equal(['postgres12_pgx', 'postgres12_pgx']);
    // The image renders its own template, whose `DB` names the plugin of both stores.
    expect(environment(compose.services.temporal ?? {}).DB).to.equal(plugins[0]);
  });

  it("gives PostgreSQL the production profile's max_connections, which Temporal's pools and the apps' need", function () {
    const profile = /^STAGE_MAX_CONNECTIONS=(\d+)$/m.exec(read('scripts/lib/stage-setup.sh'))?.[1];
    expect(profile, 'the profile sets it').to.be.a('string');
    expect(compose.services.postgres?.command).to.deep.equal(['postgres', '-c', `max_connections=${profile}`]);
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

  it('runs one worker service per worker process queue of the names module, each on dist/workers/<queue>.js', function () {
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

  it("gives the Temporal server the dynamic configuration of the code's task queue fairness and history cache", function () {
    const temporal = compose.services.temporal!;
    const file = environment(temporal).DYNAMIC_CONFIG_FILE_PATH ?? '';
    const mount = (temporal.volumes ?? []).find((v) => v.split(':')[1]?.endsWith(file));
    expect(mount, `a volume mounted at …/${file}`).to.be.a('string');
    const config = parse(read(mount!.split(':')[0]!)) as Record<string, { value: unknown }[]>;
    const values = Object.fromEntries(Object.entries(config).map(([key, [first]]) => [key, first?.value]));
    expect(values).to.deep.equal({ ...FAIRNESS_DYNAMIC_CONFIG, ...HISTORY_CACHE_DYNAMIC_CONFIG });
  });

  it('registers exactly the search attributes of the names module, as keywords', function () {
    const setup = temporalSetupScript();
    const registered = /for sa in ([^;]+);/.exec(setup)?.[1]?.trim().split(/\s+/);
    expect(registered).to.have.members(SEARCH_ATTRIBUTES);
    // One attribute a call: several names in one call register only some of them on SQL visibility.
    expect(setup).to.match(/search-attribute create [^\n]*--type Keyword --name "\$\$sa"/);
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

/**
 * The compose file is the production profile (scripts/stage.sh, docs/operators/production-profile.md) in containers:
 * the same proxy file, the same versions, the same environment. Read from the profile's own files.
 */
describe('docker-compose.yml matches the production profile', function () {
  /** `${NAME:?…}` and `${NAME:-default}` as compose resolves them: required ones get a stand-in value. */
  const resolved = (env: Record<string, string>): Record<string, string> =>
    Object.fromEntries(
      Object.entries(env).map(([k, v]) => [
        k,
        v
          .replace(/\$\{(\w+):\?[^}]*\}/g, (_m, name: string) =>
            name === 'WEBHOOK_SECRET_KEY' ? Buffer.alloc(32, 7).toString('base64') : `stand-in-${name.toLowerCase()}`,
          )
          .replace(/\$\{\w+:-([^}]*)\}/g, '$1'),
      ]),
    );
  const profileScript = read('scripts/lib/temporal-server.sh');
  const versionIn = (name: string) => new RegExp(`^${name}=v?(\\S+)$`, 'm').exec(profileScript)?.[1];

  it('runs the proxy from ops/haproxy.cfg, the file the profile runs, and only the proxy publishes an app', function () {
    const proxy = compose.services.proxy!;
    expect(proxy.volumes).to.include('./ops/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro');
    const supervisor = read('ops/stage/supervisord.conf');
    expect(supervisor).to.contain('/usr/sbin/haproxy -db -f %(ENV_STAGE_ROOT)s/ops/haproxy.cfg');
    const published = Object.entries(compose.services)
      .filter(([, service]) => ((service as { ports?: string[] }).ports ?? []).length > 0)
      .map(([name]) => name);
    // The mail sink's inbox is on loopback only, Prometheus is the operators' own: neither is an app.
    expect(published).to.have.members(['proxy', 'mail', 'prometheus']);
    expect((compose.services.mail as { ports: string[] }).ports.every((p) => p.startsWith('127.0.0.1:'))).to.equal(
      true,
    );
    for (const name of [...Object.keys(API_SERVICES), 'temporal-ui', 'temporal']) {
      expect((compose.services[name] as { ports?: string[] }).ports, name).to.equal(undefined);
    }
    const env = environment(proxy);
    expect(env.UPSTREAM_API_PRODUCTION).to.equal('api-production:3000');
    expect(env.UPSTREAM_API_SANDBOX).to.equal('api-sandbox:3000');
    // Both give the proxy exactly the variables its file reads: one missing would start it with an empty address.
    const readByFile = [...read('ops/haproxy.cfg').matchAll(/\$\{([A-Z_]+)\}/g)].map((m) => m[1]!);
    const profileEnv = /\[program:proxy\][^[]*?\nenvironment = (.*)/.exec(supervisor)?.[1] ?? '';
    const givenByProfile = [...profileEnv.matchAll(/(?:^|,)([A-Z_]+)=/g)].map((m) => m[1]!);
    expect(new Set(readByFile)).to.deep.equal(new Set(Object.keys(env)));
    expect(new Set(readByFile)).to.deep.equal(new Set(givenByProfile));
  });

  it('names the versions the profile runs: HAProxy, Temporal server and admin tools, the Web UI, PostgreSQL, Redis, maildev', function () {
    // `haproxy -v` prints "HAProxy version 2.6.12-1+deb12u4 …": Debian's build of the image's version.
    const haproxy = /version (\d+\.\d+\.\d+)/.exec(
      execFileSync('/usr/sbin/haproxy', ['-v'], { encoding: 'utf8' }),
    )?.[1];
    expect(compose.services.proxy?.image).to.equal(`haproxy:${haproxy}`);
    expect(compose.services.temporal?.image).to.equal(`temporalio/server:${versionIn('TEMPORAL_SERVER_VERSION')}`);
    expect(compose.services['temporal-setup']?.image).to.equal(
      `temporalio/admin-tools:${versionIn('TEMPORAL_SERVER_VERSION')}`,
    );
    expect(compose.services['temporal-ui']?.image).to.equal(`temporalio/ui:${versionIn('TEMPORAL_UI_VERSION')}`);
    const postgres = fs.readdirSync('/usr/lib/postgresql').sort().at(-1);
    expect(compose.services.postgres?.image).to.equal(`postgres:${postgres}-bookworm`);
    const redis = /v=(\d+)\./.exec(execFileSync('redis-server', ['--version'], { encoding: 'utf8' }))?.[1];
    expect(compose.services.redis?.image).to.equal(`redis:${redis}-bookworm`);
    const maildev = (JSON.parse(read('node_modules/maildev/package.json')) as { version: string }).version;
    expect(compose.services.mail?.image).to.equal(`maildev/maildev:${maildev}`);
    // Redis as the profile's: the append-only file on, a password.
    expect(commandOf('redis').join(' '))
      .to.match(/--appendonly yes\b/)
      .and.match(/--requirepass /);
    expect(read('scripts/lib/stage-setup.sh'))
      .to.match(/^appendonly yes$/m)
      .and.match(/^requirepass /m);
  });

  it('sets every variable the profile sets for the same process, with the same production values', function () {
    // The profile: what stage_process_env passes every process, what supervisord adds per program, and the secrets
    // scripts/stage-exec.sh reads for the apps.
    const common = /for name in (APP_ENV[A-Z_ \\\n]+); do/.exec(read('scripts/lib/stage-setup.sh'))?.[1];
    expect(common, 'the list in stage_process_env').to.be.a('string');
    const secrets = ['REDIS_URL', 'WEBHOOK_SECRET_KEY', 'WEBHOOK_SECRET_KEY_PREVIOUS'];
    const supervisor = read('ops/stage/supervisord.conf');
    const programEnv = (program: string) =>
      (new RegExp(`\\[program:${program}\\][^[]*?\\nenvironment = ([^\\n]+)`).exec(supervisor)?.[1] ?? '')
        .split(',')
        .map((pair) => pair.split('=')[0]!);
    // Read by the loaders; NODE_ENV is the image's (Dockerfile), NODE_EXTRA_CA_CERTS trusts the profile's local CA
    // and WEBHOOK_ALLOW_HOSTS is empty unless the profile's test suite names its receiver.
    const ignored = ['NODE_ENV', 'NODE_EXTRA_CA_CERTS', 'WEBHOOK_ALLOW_HOSTS'];
    const profileSets = (program: string, extra: string[]) =>
      [...common!.split(/[\s\\]+/).filter(Boolean), ...secrets, ...programEnv(program), ...extra].filter(
        (v) => !ignored.includes(v),
      );
    for (const [name, mode] of Object.entries(API_SERVICES)) {
      const env = environment(compose.services[name]!);
      const expected = profileSets(`api-${mode}`, ['DATABASE_URL', 'PORT']).filter((v) => configVars.includes(v));
      expect(expected, name).to.include.members(['APP_ENV', 'TRUSTED_PROXIES', 'PUBLIC_BASE_URL', 'API_PROCESSES']);
      expect(Object.keys(env), name).to.include.members(expected);
      expect(env).to.include({ APP_ENV: 'production', LOG_FORMAT: 'json', API_PROCESSES: '2' });
    }
    for (const name of Object.keys(WORKER_SERVICES)) {
      const env = environment(compose.services[name]!);
      const expected = profileSets(name, ['PRODUCTION_DATABASE_URL', 'SANDBOX_DATABASE_URL']).filter((v) =>
        workerVars.includes(v),
      );
      expect(Object.keys(env), name).to.include.members(expected);
      expect(env).to.include({ APP_ENV: 'production', LOG_FORMAT: 'json' });
    }
    expect(read('Dockerfile')).to.match(/^ENV NODE_ENV=production$/m);
  });

  it('gives each app every variable it requires in production: its loader accepts the environment, https public URLs, the proxy trusted', function () {
    for (const name of Object.keys(API_SERVICES)) {
      const config = loadConfig(resolved(environment(compose.services[name]!)));
      expect(config.publicBaseUrl, name).to.match(/^https:\/\//);
      expect(config.productionBaseUrl, name).to.match(/^https:\/\//);
      expect(config.console.secureCookies, name).to.equal(true);
      expect(
        config.trustedProxies.map(([address, bits]) => `${address.toString()}/${bits}`),
        name,
      ).to.deep.equal(['172.28.0.10/32']);
    }
    for (const name of Object.keys(WORKER_SERVICES)) {
      const config = loadWorkerConfig(resolved(environment(compose.services[name]!)));
      expect(config.modes.length, name).to.be.greaterThan(0);
    }
    const network = (compose as unknown as { networks: { default: { ipam: { config: { subnet: string }[] } } } })
      .networks.default.ipam.config[0]!.subnet;
    expect(network).to.equal('172.28.0.0/24');
  });
});
