/**
 * The deploy compiler on realistic fixtures (fixtures/compile). Every document compiled here is
 * recorded and, in the last test, run through the real `docker compose config` of Compose v2
 * (skipped with the reason printed when no binary can be had).
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DomainError } from '../lib/errors.ts';
import { type CompileInput, type CompileResult, compile, type ServerDocument } from './compile.ts';
import { composeV2ForTests } from '../../test/compose-v2.ts';
import { runComposeConfig } from './compose-binary.ts';
import { parseComposeText, stringifyComposeModel } from './document.ts';
import {
  BLOG_SERVICES,
  blogInput,
  FIXTURE_SERVERS,
  IDS,
  placementOn,
  readFixture,
  SECRET_SENTINELS,
  SHOP_SERVICES,
  secret,
  serviceRows,
  shopChains,
  shopInput,
  shopVariables,
  variableRow,
} from './fixtures/compile/index.ts';
import type { JsonObject } from './values.ts';
import { resolveVariables, type VariableRow } from './variables.ts';

/** One server's document with what the whole compile says. */
type Compiled = ServerDocument & { project: string; warnings: string[] };

const recorded: { name: string; result: Compiled }[] = [];

/** Every document of the compile, recorded for the Compose check at the end. */
function compiledAll(name: string, input: CompileInput): CompileResult {
  const result = compile(input);
  for (const document of result.documents) recorded.push({ name: `${name} (${document.serverId})`, result: { ...document, project: result.project, warnings: result.warnings } });
  return result;
}

/** A compile whose plan uses one server: its document. */
function compiled(name: string, input: CompileInput): Compiled {
  const result = compiledAll(name, input);
  expect(result.documents).toHaveLength(1);
  return { ...result.documents[0]!, project: result.project, warnings: result.warnings };
}

const servicesOf = (result: { model: JsonObject }) => result.model.services as Record<string, JsonObject>;

/** A one-off project from YAML text: service ids from the order of the keys, variables resolved per server. */
function inputFor(text: string, rows: VariableRow[] = [], overrides: Partial<CompileInput> = {}): CompileInput {
  const base = parseComposeText(text).data;
  const keys = Object.keys(base.services as JsonObject);
  const ids = Object.fromEntries(keys.map((key, i) => [key, `01940000-0000-7000-8000-00000000e${String(i).padStart(3, '0')}`]));
  const chains = keys.map((key) => ({ ...shopChains()[0]!, serviceId: ids[key]!, hostingIds: [] }));
  return { ...shopInput(), base, overlay: undefined, services: serviceRows(ids), variablesOn: (serverId) => resolveVariables(rows, chains, serverId), ...overrides };
}

function refusal(input: CompileInput): DomainError {
  try {
    compile(input);
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('compile did not refuse');
}

describe('compile: the shop with its production overlay', () => {
  const result = compiled('shop production', shopInput());
  const { web, worker, db } = servicesOf(result);

  test('one runtime document for the project pn-<environment id>, placement recorded, no other x-panel', () => {
    expect(result.project).toBe(`pn-${IDS.environment}`);
    expect(result.model.name).toBe(result.project);
    expect(result.model['x-panel']).toEqual({ placement: { server_id: IDS.server } });
    expect(result.yaml).toContain(`x-panel:\n  placement:\n    server_id: ${IDS.server}\n`);
    expect(Object.values(servicesOf(result)).some((service) => 'x-panel' in service)).toBe(false);
    expect(parseComposeText(result.yaml).data).toEqual(result.model);
  });

  test('the overlay is merged: !override and !reset apply; a row whose service it removed gets nothing', () => {
    expect(Object.keys(servicesOf(result))).toEqual(['web', 'worker', 'db']);
    expect(web!.image).toBe('ghcr.io/acme/shop:1.4.1');
    expect(web!.ports).toBeUndefined();
    expect(worker!.command).toEqual(['node', 'worker.js', '--concurrency', '4']);
    expect(result.containers.map((container) => container.serviceId)).toEqual([IDS.web, IDS.worker, IDS.db]);
  });

  test('runtime variables: narrowest scope wins, literal $ doubled, $OTHER kept, forRuntime false left out', () => {
    expect(web!.environment).toEqual({
      APP_ENV: 'staging', // environment variable over the overlay's value (warned)
      DATABASE_HOST: 'db',
      CACHE_DIR: '${HOME}/cache',
      LOG_LEVEL: 'warn', // workspace over organization
      PRICE_FORMAT: '$$0.00',
      PUBLIC_URL: 'https://shop.example.com', // the later hosting
      REGION: 'eu-central', // the target server's, not the other server's
      TZ: 'Europe/Berlin', // organization over server
    });
    expect(worker!.environment).toMatchObject({ QUEUE: 'default', ASSET_HOST: 'cdn.example.com' });
    expect(worker!.environment).not.toHaveProperty('SENTRY_DSN');
    expect(result.yaml).not.toContain('sentry.example.com');
    expect(result.warnings).toContain('services.web.environment.APP_ENV is replaced by the environment-scope variable');
  });

  test('build variables go to build.args only where the service builds', () => {
    expect(web!.build).toEqual({
      context: './app',
      args: { NODE_VERSION: '24' },
      secrets: [{ source: 'web__npm_token', target: 'NPM_TOKEN' }],
    });
    expect(web!.environment).not.toHaveProperty('NODE_VERSION');
    expect(worker!.build).toBeUndefined();
    expect(result.warnings).toContain('services.worker has no build section; build variables not used: ASSET_HOST');
  });

  test('secrets are files only: declared, mounted at /run/secrets/<KEY>, their values nowhere', () => {
    expect(result.secrets).toEqual([
      { name: 'web__db_password', variableId: `environment/${IDS.environment}/DB_PASSWORD`, serviceId: IDS.web, key: 'DB_PASSWORD' },
      { name: 'web__npm_token', variableId: `service/${IDS.web}/NPM_TOKEN`, serviceId: IDS.web, key: 'NPM_TOKEN' },
      { name: 'worker__db_password', variableId: `environment/${IDS.environment}/DB_PASSWORD`, serviceId: IDS.worker, key: 'DB_PASSWORD' },
      { name: 'db__db_password', variableId: `environment/${IDS.environment}/DB_PASSWORD`, serviceId: IDS.db, key: 'DB_PASSWORD' },
      { name: 'db__postgres_password', variableId: `service/${IDS.db}/POSTGRES_PASSWORD`, serviceId: IDS.db, key: 'POSTGRES_PASSWORD' },
    ]);
    for (const { name } of result.secrets) expect(result.model.secrets).toHaveProperty([name], { file: `../${result.project}.panel/secrets/${name}` });
    expect(db!.secrets).toEqual([
      { source: 'db__db_password', target: 'DB_PASSWORD' },
      { source: 'db__postgres_password', target: 'POSTGRES_PASSWORD' },
    ]);
    expect(web!.secrets).toEqual([{ source: 'web__db_password', target: 'DB_PASSWORD' }]); // NPM_TOKEN is build-only
    // The document's default password gives way to the secret instead of shadowing it.
    expect(db!.environment).not.toHaveProperty('POSTGRES_PASSWORD');
    expect(result.yaml).not.toContain('changeme');
    const everything = JSON.stringify(result);
    for (const sentinel of SECRET_SENTINELS) expect(everything).not.toContain(sentinel);
    expect(everything).not.toContain('OTHER_SERVER_TOKEN');
  });

  test('services running as a principal get its uid:gid as user', () => {
    expect(web!.user).toBe('1001:1001');
    expect(worker!.user).toBe('1001:1001');
    expect(db!.user).toBeUndefined();
  });

  test('uuid naming: <service id>-1 per service, and the container rows to pre-allocate', () => {
    expect(web!.container_name).toBe(`${IDS.web}-1`);
    expect(result.containers).toEqual([
      { serviceId: IDS.web, composeServiceName: 'web', containerName: `${IDS.web}-1`, role: 'service', ordinal: 1 },
      { serviceId: IDS.worker, composeServiceName: 'worker', containerName: `${IDS.worker}-1`, role: 'service', ordinal: 1 },
      { serviceId: IDS.db, composeServiceName: 'db', containerName: `${IDS.db}-1`, role: 'service', ordinal: 1 },
    ]);
  });

  test('platform labels on every service', () => {
    expect(db!.labels).toEqual({
      'dev.panel.organization-id': IDS.organization,
      'dev.panel.project-id': IDS.project,
      'dev.panel.environment-id': IDS.environment,
      'dev.panel.service-id': IDS.db,
      'dev.panel.compose-service': 'db',
      'dev.panel.role': 'service',
      'dev.panel.ordinal': '1',
    });
    for (const service of Object.values(servicesOf(result))) expect(service.labels).toHaveProperty(['dev.panel.service-id']);
  });

  test('inputs are left untouched and the output does not depend on row order', () => {
    const input = shopInput();
    const before = structuredClone({ base: input.base, overlay: input.overlay });
    const again = compiled('shop production (again)', input);
    expect({ base: input.base, overlay: input.overlay }).toEqual(before);
    const reversed = (serverId: string) => resolveVariables([...shopVariables()].reverse(), [...shopChains()].reverse(), serverId);
    expect(compiled('shop production (rows reversed)', { ...input, variablesOn: reversed }).yaml).toBe(again.yaml);
    expect(again.yaml).toBe(result.yaml);
  });
});


describe('compile: several instances on one server', () => {
  test('uuid naming: <key>-1..N Compose services, <service id>-<ordinal> names, one alias for all', () => {
    const result = compiled('shop, web x3', shopInput({ services: serviceRows(SHOP_SERVICES, { web: 3 }) }));
    const services = servicesOf(result);
    expect(Object.keys(services)).toEqual(['web-1', 'web-2', 'web-3', 'worker', 'db']);
    for (const ordinal of [1, 2, 3]) {
      const clone = services[`web-${ordinal}`]!;
      expect(clone.container_name).toBe(`${IDS.web}-${ordinal}`);
      expect(clone.labels).toMatchObject({ 'dev.panel.service-id': IDS.web, 'dev.panel.compose-service': 'web', 'dev.panel.ordinal': String(ordinal) });
      expect(clone.networks).toEqual({ default: { aliases: ['web'] } });
      expect(clone.secrets).toEqual([{ source: 'web__db_password', target: 'DB_PASSWORD' }]);
    }
    expect(result.containers.filter((container) => container.serviceId === IDS.web)).toEqual(
      [1, 2, 3].map((ordinal) => ({ serviceId: IDS.web, composeServiceName: `web-${ordinal}`, containerName: `${IDS.web}-${ordinal}`, role: 'service', ordinal })),
    );
    // One secret file per service, whatever its number of instances.
    expect(result.secrets.filter((entry) => entry.serviceId === IDS.web)).toHaveLength(2);
  });

  test('a fixed published port on several instances of one server is refused: Docker binds it once', () => {
    const error = refusal(shopInput({ overlay: undefined, services: serviceRows(SHOP_SERVICES, { web: 2 }) }));
    expect({ code: error.code, path: error.path }).toEqual({ code: 'host_port_conflict', path: 'services.web.ports' });
  });

  test('custom naming: authored names suffixed per instance, Compose defaults otherwise', () => {
    const result = compiled('blog, app x2', blogInput(2));
    const names = Object.fromEntries(result.containers.map((container) => [container.composeServiceName, container.containerName]));
    expect(names).toEqual({
      'app-1': 'blog-app-1',
      'app-2': 'blog-app-2',
      proxy: 'blog-proxy',
      cache: `${result.project}-cache-1`,
      backup: `${result.project}-backup-1`,
      mailer: 'blog-mailer',
    });
    for (const [key, name] of Object.entries(names)) expect(servicesOf(result)[key]!.container_name).toBe(name);
  });

  test('references to a multi-instance service are rewritten to its clones', () => {
    const result = compiled('blog, app x3', blogInput(3));
    const { proxy, backup, mailer, 'app-2': app2 } = servicesOf(result);
    expect(Object.keys(proxy!.depends_on as JsonObject)).toEqual(['app-1', 'app-2', 'app-3']);
    expect(proxy!.links).toEqual(['app-1:backend', 'app-2:backend', 'app-3:backend']);
    expect(backup!.network_mode).toBe('service:app-1');
    expect(backup!.volumes_from).toEqual(['app-1:ro']);
    expect(backup!.depends_on).toEqual({ 'app-1': { condition: 'service_started' }, 'app-2': { condition: 'service_started' }, 'app-3': { condition: 'service_started' } });
    expect(app2!.networks).toEqual({ front: { aliases: ['app'] }, back: { aliases: ['app'] } });
    // extends was resolved before the instances were cloned: the mailer is a service of its own.
    expect(mailer).toMatchObject({ image: 'ghcr.io/acme/blog:2.0', command: ['node', 'mailer.js'], networks: ['front', 'back'] });
    expect(mailer!.extends).toBeUndefined();
  });

  test('deploy.replicas on one server: clones like instances; replicas and placement leave the document, the rest of deploy stays', () => {
    const overlay = parseComposeText('services:\n  app:\n    deploy: {replicas: 2, placement: {constraints: [node.labels.disk == ssd]}}\n').data;
    const result = compiled('blog, app replicas 2', blogInput(1, { overlay }));
    expect(Object.keys(servicesOf(result))).toEqual(['app-1', 'app-2', 'proxy', 'cache', 'backup', 'mailer']);
    expect(servicesOf(result)['app-2']!.deploy).toEqual({ resources: { limits: { memory: '512M' } } });
    expect(servicesOf(result)['app-2']!.container_name).toBe('blog-app-2');
    expect(result.yaml).not.toMatch(/replicas|constraints/);
  });

  test('reserved labels are dropped, authored ones kept; an authored secret at a variable target gives way', () => {
    const result = compiled('blog, app x1 (labels)', blogInput(1));
    const app = servicesOf(result).app!;
    expect(app.labels).toMatchObject({ 'com.example.team': 'blog', 'dev.panel.service-id': BLOG_SERVICES.app });
    expect(result.warnings).toContain('services.app.labels: reserved labels removed: dev.panel.service-id');
    expect(app.secrets).toEqual(['mail_signing_key', { source: 'app__smtp_password', target: 'SMTP_PASSWORD' }]);
    expect(app.build).toEqual({ context: './blog', args: { BLOG_THEME: 'dark' } });
    expect(result.model.secrets).toEqual({
      smtp_password: { file: './smtp_password.txt' },
      mail_signing_key: { file: './mail_signing_key.pem' },
      app__smtp_password: { file: `../${result.project}.panel/secrets/app__smtp_password` },
    });
  });

  test('uuid naming replaces an authored container_name, with a warning', () => {
    const result = compiled('blog, uuid naming', blogInput(1, { containerNaming: 'uuid' }));
    expect(servicesOf(result).proxy!.container_name).toBe(`${BLOG_SERVICES.proxy}-1`);
    expect(result.warnings).toContain('services.proxy.container_name is replaced: the project names containers by service id');
  });
});

describe('compile: one document per server', () => {
  const overlay = parseComposeText(`services:
  web:
    image: !override ghcr.io/acme/shop:1.4.1
    ports: !reset []
    deploy: {replicas: 3, placement: {max_replicas_per_node: 2}}
  worker:
    deploy: {placement: {constraints: [node.hostname == b.example.net]}}
  debug: !reset {}
`).data;
  const result = compiledAll('shop over two servers', shopInput({ overlay, placement: placementOn(IDS.server, FIXTURE_SERVERS) }));
  const [onA, onB] = result.documents;

  test('the anchor first; each document records its server and holds only what runs there', () => {
    expect(result.documents.map((document) => document.serverId)).toEqual([IDS.server, IDS.otherServer]);
    expect(onA!.model['x-panel']).toEqual({ placement: { server_id: IDS.server } });
    expect(onB!.model['x-panel']).toEqual({ placement: { server_id: IDS.otherServer } });
    expect(Object.keys(servicesOf(onA!))).toEqual(['web-1', 'web-3', 'db']);
    expect(Object.keys(servicesOf(onB!))).toEqual(['web', 'worker']);
    for (const document of result.documents) {
      expect(document.model.name).toBe(result.project);
      expect(parseComposeText(document.yaml).data).toEqual(document.model);
      expect(document.yaml).not.toMatch(/replicas|constraints/);
    }
  });

  test('container rows per server: ordinals where the planner put them, names per containerNaming', () => {
    const rows = result.documents.flatMap((document) => document.containers.map((row) => ({ ...row, serverId: document.serverId })));
    expect(rows.filter((row) => row.serviceId === IDS.web)).toEqual([
      { serviceId: IDS.web, composeServiceName: 'web-1', containerName: `${IDS.web}-1`, role: 'service', ordinal: 1, serverId: IDS.server },
      { serviceId: IDS.web, composeServiceName: 'web-3', containerName: `${IDS.web}-3`, role: 'service', ordinal: 3, serverId: IDS.server },
      { serviceId: IDS.web, composeServiceName: 'web', containerName: `${IDS.web}-2`, role: 'service', ordinal: 2, serverId: IDS.otherServer },
    ]);
    expect(servicesOf(onB!).web!.labels).toMatchObject({ 'dev.panel.ordinal': '2', 'dev.panel.compose-service': 'web' });
    expect(rows.map((row) => row.serviceId).sort()).toEqual([IDS.web, IDS.web, IDS.web, IDS.worker, IDS.db].sort());
  });

  test('references to services of another server are dropped, with a warning; those on the same server stay', () => {
    expect(servicesOf(onA!)['web-1']!.depends_on).toEqual({ db: { condition: 'service_healthy' } });
    expect(servicesOf(onB!).web!.depends_on).toBeUndefined();
    expect(servicesOf(onB!).worker!.depends_on).toBeUndefined();
    expect(result.warnings).toContain('services.web.depends_on db is dropped on server server-b: no container of db runs there');
    expect(result.warnings).toContain('services.worker.depends_on db is dropped on server server-b: no container of db runs there');
  });

  test("server-scope variables are each server's own; secrets go only where a service uses them", () => {
    expect((servicesOf(onA!)['web-1']!.environment as JsonObject).REGION).toBe('eu-central');
    expect((servicesOf(onB!).web!.environment as JsonObject).REGION).toBe('us-east');
    expect(onA!.secrets.map((entry) => entry.name)).toEqual(['web__db_password', 'web__npm_token', 'db__db_password', 'db__postgres_password']);
    expect(onB!.secrets.map((entry) => entry.name)).toEqual(['web__db_password', 'web__npm_token', 'web__other_server_token', 'worker__db_password', 'worker__other_server_token']);
    expect(onA!.yaml).not.toContain('other_server_token');
    for (const document of result.documents) expect(JSON.stringify(document)).not.toContain(SECRET_SENTINELS[3]);
  });

  test('a plan that places nothing compiles no document', () => {
    const none = parseComposeText('services:\n  web: {deploy: {replicas: 0}}\n  worker: {deploy: {replicas: 0}}\n  db: {deploy: {replicas: 0}}\n  debug: !reset {}\n').data;
    const empty = compile(shopInput({ overlay: none }));
    expect(empty.documents).toEqual([]);
    expect([...empty.placement.services.values()]).toEqual([[], [], []]);
  });
});

describe('compile: principals, secrets and names', () => {
  const doc = `
x-panel:
  principals: {runner: {}, nogroup: {}}
services:
  job: {image: alpine:3, user: nobody, x-panel: {principal: runner}}
  tool: {image: alpine:3, x-panel: {principal: nogroup}}
secrets:
  job__api_key: {file: ./api_key.txt}
`;
  const principals = { runner: { appliedUsername: 'runner_a1b2c3d4e5f' }, nogroup: { appliedUsername: 'nogroup', uid: 2001 } };

  test('a principal without uid runs by name (warned); one without gid by uid alone; an authored user gives way', () => {
    const result = compiled('principals', inputFor(doc, [], { principals }));
    expect(servicesOf(result).job!.user).toBe('runner_a1b2c3d4e5f');
    expect(servicesOf(result).tool!.user).toBe('2001');
    expect(result.warnings).toContain('services.job runs as user name runner_a1b2c3d4e5f: its uid is not known, so the name must exist in the image');
    expect(result.warnings).toContain('services.job.user is replaced by principal runner (runner_a1b2c3d4e5f)');
  });

  test('a secret whose readable name the document already uses gets a hashed name', () => {
    const rows = [variableRow('project', IDS.project, 'API_KEY', SECRET_SENTINELS[0], secret())];
    const result = compiled('secret name taken', inputFor(doc, rows, { principals }));
    const [jobSecret, toolSecret] = result.secrets;
    expect(jobSecret!.name).toMatch(/^job__api_key-[0-9a-f]{8}$/);
    expect(toolSecret!.name).toBe('tool__api_key');
    expect(result.model.secrets).toHaveProperty(['job__api_key'], { file: './api_key.txt' });
    expect(result.yaml).not.toContain(SECRET_SENTINELS[0]);
  });

  test('a service without variables gets no environment; list-form environment becomes a mapping', () => {
    const text = 'services:\n  a: {image: alpine:3}\n  b: {image: alpine:3, environment: ["X=1", "Y"]}\n';
    const rows = [variableRow('service', '01940000-0000-7000-8000-00000000e001', 'Z', 'a$b', { isLiteral: true })];
    const result = compiled('environment forms', inputFor(text, rows));
    expect(servicesOf(result).a!.environment).toBeUndefined();
    expect(servicesOf(result).b!.environment).toEqual({ X: '1', Y: null, Z: 'a$$b' });
  });
});

test('values a YAML reader could take for numbers, booleans or structure stay strings', () => {
  const values = ['yes', 'off', 'null', '~', '0644', '1e5', 'E0', '0x1F', '12:30', '5s', '2001-12-14', 'a: b', 'a #b', '- x', '', ' padded ', 'two\nlines', 'ünï 😀'];
  const rows = values.map((value, i) => variableRow('project', IDS.project, `V${i}`, value, { isLiteral: true }));
  const result = compiled('tricky values', inputFor('services:\n  app: {image: alpine:3}\n', rows));
  const environment = servicesOf(result).app!.environment as JsonObject;
  expect(values.map((_, i) => environment[`V${i}`])).toEqual(values);
  expect(parseComposeText(result.yaml).data).toEqual(result.model);
});

describe('compile: refusals', () => {
  test('a Compose service without a service row', () => {
    const error = refusal(shopInput({ services: serviceRows({ web: IDS.web, worker: IDS.worker }) }));
    expect({ code: error.code, path: error.path }).toEqual({ code: 'compose_invalid', path: 'services.db' });
  });

  test('a principal alias with no provisioned principal', () => {
    const error = refusal(shopInput({ principals: {} }));
    expect({ code: error.code, path: error.path }).toEqual({ code: 'compose_invalid', path: 'services.web.x-panel.principal' });
  });

  test("a placement the organization cannot satisfy is the planner's refusal", () => {
    const overlay = parseComposeText('services:\n  db:\n    deploy: {placement: {constraints: [node.labels.disk == nvme]}}\n').data;
    const error = refusal(shopInput({ overlay }));
    expect({ code: error.code, status: error.status, path: error.path }).toEqual({ code: 'constraint_unsatisfiable', status: 422, path: 'services.db.deploy.placement.constraints.0' });
  });

  test('a clone name already used by another service', () => {
    const input = inputFor('services:\n  web: {image: nginx}\n  web-2: {image: nginx}\n');
    const services = input.services.map((row) => (row.composeServiceName === 'web' ? { ...row, options: { instances: 2 } } : row));
    expect(refusal({ ...input, services }).path).toBe('services.web-2');
  });

  test('an instance count that is not a positive integer', () => {
    expect(refusal(shopInput({ services: serviceRows(SHOP_SERVICES, { web: 0 }) })).code).toBe('validation_failed');
  });

  test('the merged document is validated: x-panel.placement is refused', () => {
    const base = { ...readFixture('shop.base.yaml'), 'x-panel': { placement: { server_id: IDS.server } } };
    expect(refusal(shopInput({ base })).path).toBe('x-panel.placement');
  });
});

const lookup = await composeV2ForTests();
if (!lookup.found) console.warn(`compile.test.ts: the Compose v2 check is skipped: ${lookup.reason}`);
let workDir = '';
afterAll(() => {
  if (workDir !== '') rmSync(workDir, { recursive: true, force: true });
});

/**
 * `compose config` on one compiled document, with empty 0600 files for its secrets: Compose
 * accepts it, names the containers as the rows say, and reads the same model from our YAML
 * writer as from stringifyComposeModel's text of the same model.
 */
async function composeAccepts(name: string, result: Compiled, index: number): Promise<void> {
  if (!lookup.found) return;
  const dir = join(workDir, String(index));
  mkdirSync(join(dir, 'secrets'), { recursive: true });
  writeFileSync(join(dir, 'compose.yaml'), result.yaml);
  writeFileSync(join(dir, 'reference.yaml'), stringifyComposeModel(result.model));
  for (const { name: file } of result.secrets) {
    writeFileSync(join(dir, 'secrets', file), '');
    chmodSync(join(dir, 'secrets', file), 0o600);
  }
  const config = async (file: string) => {
    const output = await runComposeConfig(lookup.binary, [file], { cwd: dir, projectName: result.project, format: 'json' });
    if (output.exitCode !== 0) throw new Error(`${name}: compose config failed on ${file}: ${output.stderr}`);
    return JSON.parse(output.stdout) as { services: Record<string, { container_name?: string }> };
  };
  const [model, reference] = await Promise.all([config('compose.yaml'), config('reference.yaml')]);
  expect(model).toEqual(reference);
  const names = Object.fromEntries(Object.entries(model.services).map(([key, service]) => [key, service.container_name]));
  expect(names).toEqual(Object.fromEntries(result.containers.map((container) => [container.composeServiceName, container.containerName])));
}

// Declared last: Bun runs a file's tests in order, so every document above has been recorded.
test.skipIf(!lookup.found)('every compiled document passes `docker compose config` (Compose v2)', async () => {
  expect(recorded.length).toBeGreaterThanOrEqual(10);
  workDir = mkdtempSync(join(tmpdir(), 'panel-compile-'));
  for (const [i, { name, result }] of recorded.entries()) await composeAccepts(name, result, i);
}, 60_000); // a generous bound for a loaded machine; nothing here is timed
