/**
 * The policy's behaviour beyond single keys (the corpus covers those): the three forms of a
 * model, interpolation, merge tags, Panel's own secret files, platform projects, the hint and
 * the host paths reported to the daemon.
 */
import { describe, expect, test } from 'bun:test';
import { parseComposeText } from '../document.ts';
import type { JsonObject } from '../values.ts';
import { checkComposePolicy, type HostPathUse, type PolicyOptions } from './index.ts';

const refusedAt = (path: string) => expect.objectContaining({ code: 'compose_invalid', status: 422, path });
const model = (text: string): JsonObject => parseComposeText(text).data;
const check = (text: string, options: Partial<PolicyOptions> = {}) => () => checkComposePolicy(model(text), { hostAccess: false, ...options });
const web = (settings: string) => `services:\n  web:\n    image: app\n    ${settings}\n`;

describe('stored documents', () => {
  test('a refusal names its path first and says host access is off, with the caller\'s hint', () => {
    const refusal = () => checkComposePolicy(model(web('privileged: true')), { hostAccess: false, hostAccessHint: 'ask an owner' });
    expect(refusal).toThrow(refusedAt('services.web.privileged'));
    expect(refusal).toThrow(/^services\.web\.privileged: privileged mode .*; this needs host access, which is off for this project \(ask an owner\)$/);
  });

  test('host access allows host settings, never what the platform owns', () => {
    expect(check(web('privileged: true'), { hostAccess: true })).not.toThrow();
    expect(check(web('labels: {com.docker.compose.project: other}'), { hostAccess: true })).toThrow(refusedAt('services.web.labels.com.docker.compose.project'));
    expect(check('x-panel: {placement: {server_id: x}}', { hostAccess: true })).toThrow(refusedAt('x-panel.placement'));
  });

  test('unknown keys are refused at every depth; x-* extensions are inert', () => {
    expect(check('servics: {}')).toThrow(refusedAt('servics'));
    expect(check(web('build: {context: ., dockerfil: Dockerfile}'))).toThrow(refusedAt('services.web.build.dockerfil'));
    expect(check(web('deploy: {resources: {limits: {gpus: 1}}}'))).toThrow(refusedAt('services.web.deploy.resources.limits.gpus'));
    expect(check(`x-common: {privileged: true}\n${web('x-note: {anything: [1]}')}`)).not.toThrow();
  });

  test('interpolation in a checked value cannot be checked and needs host access; elsewhere it is fine', () => {
    for (const [settings, path] of [
      ['privileged: ${PRIVILEGED}', 'services.web.privileged'],
      ['volumes: ["${ROOT:-/}:/host"]', 'services.web.volumes.0'],
      ['volumes: [{type: bind, source: "$HOME", target: /h}]', 'services.web.volumes.0.source'],
      ['network_mode: ${MODE}', 'services.web.network_mode'],
      ['cap_add: ["${CAP}"]', 'services.web.cap_add.0'],
      ['labels: ["${KEY}=x"]', 'services.web.labels.0'],
      ['env_file: ${ENV_FILE}', 'services.web.env_file'],
    ]) {
      expect(check(web(settings!))).toThrow(refusedAt(path!));
      expect(check(web(settings!))).toThrow(/variable interpolation/);
      expect(check(web(settings!), { hostAccess: true })).not.toThrow();
    }
    expect(check('services: {web: {image: "app:${TAG}", environment: {HOME_DIR: $HOME}, volumes: ["./cost$$:/z"]}}')).not.toThrow();
  });

  test('!override values are checked, !reset ones skipped', () => {
    expect(check(web('volumes: !override ["/etc:/etc"]'))).toThrow(refusedAt('services.web.volumes.0'));
    expect(check(web('privileged: !reset true\n    devices: !reset ["/dev/sda"]'))).not.toThrow();
    expect(check('services: {web: !override {image: app, pid: host}}')).toThrow(refusedAt('services.web.pid'));
  });

  test('anchors and merge keys are expanded before the policy looks', () => {
    const text = 'x-host: &host {pid: host}\nservices:\n  web:\n    <<: *host\n    image: app\n';
    expect(check(text)).toThrow(refusedAt('services.web.pid'));
  });

  test('relative paths stay in the project folder; climbing out, ~ and absolute paths are the host', () => {
    expect(check(web('volumes: [./data:/data, ".:/app:ro", "data/../logs:/logs"]\n    env_file: [{path: ./conf/app.env, required: false}]'))).not.toThrow();
    for (const source of ['../other:/x', './a/../../b:/x', '~/x:/x', '/srv/data:/x', 'C:\\\\data:/x']) {
      expect(check(web(`volumes: ["${source}"]`))).toThrow(refusedAt('services.web.volumes.0'));
    }
  });

  test('a Dockerfile stays inside its context and the project folder', () => {
    expect(check(web('build: {context: ./app, dockerfile: docker/Dockerfile}'))).not.toThrow();
    expect(check(web('build: {context: ./app, dockerfile: ../../Dockerfile}'))).toThrow(refusedAt('services.web.build.dockerfile'));
    expect(check(web('build: {context: ./app, dockerfile: /etc/Dockerfile}'))).toThrow(refusedAt('services.web.build.dockerfile'));
    expect(check(web('build: {context: "https://github.com/acme/app.git#main", dockerfile: Dockerfile}'))).not.toThrow();
  });
});

describe('resolved models (the daemon, after docker compose config)', () => {
  const resolved = (text: string, options: Partial<PolicyOptions> = {}) =>
    check(text, { form: 'resolved', projectDir: '/var/lib/panel-daemon/projects/pn-1', project: 'pn-1', ...options });

  test('absolute paths inside the project folder pass; anything else is the host', () => {
    const inside = 'services: {web: {image: app, volumes: [{type: bind, source: /var/lib/panel-daemon/projects/pn-1/data, target: /d}]}}';
    expect(resolved(inside)).not.toThrow();
    for (const source of ['/var/lib/panel-daemon/projects/pn-1.panel/secrets/x', '/var/lib/panel-daemon/projects/pn-2/data', '/etc', '/var/lib/panel-daemon/projects/pn-1/../pn-2']) {
      expect(resolved(`services: {web: {image: app, volumes: [{type: bind, source: "${source}", target: /d}]}}`)).toThrow(refusedAt('services.web.volumes.0.source'));
    }
  });

  test('interpolation is already done: a value with $ is read as written', () => {
    expect(resolved('services: {web: {image: app, privileged: false, environment: {A: "$literal"}}}')).not.toThrow();
  });

  test("Compose's own resource names are the project's; other fixed names are not", () => {
    expect(resolved('networks: {default: {name: pn-1_default, ipam: {}}}\nvolumes: {data: {name: pn-1_data}}')).not.toThrow();
    expect(resolved('networks: {default: {name: pn-2_default}}')).toThrow(refusedAt('networks.default.name'));
    expect(resolved('volumes: {data: {name: pn-2_data}}')).toThrow(refusedAt('volumes.data.name'));
  });

  test("the daemon's own secret files pass only as the top-level secret they were written for", () => {
    const secretFiles = new Map([['web__token', '/var/lib/panel-daemon/projects/pn-1.panel/secrets/web__token']]);
    const text = (key: string) => `secrets: {${key}: {file: /var/lib/panel-daemon/projects/pn-1.panel/secrets/web__token}}`;
    expect(resolved(text('web__token'), { secretFiles })).not.toThrow();
    expect(resolved(text('other'), { secretFiles })).toThrow(refusedAt('secrets.other.file'));
    expect(resolved(text('web__token'))).toThrow(refusedAt('secrets.web__token.file'));
    const bind = 'services: {web: {image: app, volumes: [{type: bind, source: /var/lib/panel-daemon/projects/pn-1.panel/secrets/web__token, target: /t}]}}';
    expect(resolved(bind, { secretFiles })).toThrow(refusedAt('services.web.volumes.0.source'));
  });

  test('x-* keys are inert in compiled and resolved forms (the compiled document records its placement)', () => {
    expect(check('x-panel: {placement: {server_id: s}}', { form: 'compiled' })).not.toThrow();
    expect(resolved('x-panel: {placement: {server_id: s}}')).not.toThrow();
  });
});

describe('networks compiled onto the overlay fabric', () => {
  const fabricNetwork = (options: string, subnet = '10.210.3.0/24') =>
    `networks:\n  mesh:\n    driver: bridge\n    driver_opts: {${options}}\n    ipam: {config: [{subnet: ${subnet}}]}\n`;
  const FABRIC_OPTIONS =
    'com.docker.network.bridge.name: pnf3, com.docker.network.bridge.enable_ip_masquerade: "false", com.docker.network.driver.mtu: "1420", com.docker.network.bridge.gateway_mode_ipv4: routed';
  const fabricNetworks = new Map([['mesh', { bridge: 'pnf3', subnet: '10.210.3.0/24' }]]);
  const resolved = (text: string, options: Partial<PolicyOptions> = {}) => check(text, { form: 'resolved', projectDir: '/p/pn-1', project: 'pn-1', ...options });

  test('the daemon accepts exactly the bridge and subnet the deploy command names, in compiled and resolved forms', () => {
    expect(check(fabricNetwork(FABRIC_OPTIONS), { form: 'compiled', fabricNetworks })).not.toThrow();
    expect(resolved(fabricNetwork(FABRIC_OPTIONS), { fabricNetworks })).not.toThrow();
  });

  test('a tenant cannot write them: a stored document needs host access for each', () => {
    expect(check(fabricNetwork(FABRIC_OPTIONS), { fabricNetworks })).toThrow(refusedAt('networks.mesh.driver_opts.com.docker.network.bridge.name'));
    expect(check(fabricNetwork(''), { fabricNetworks })).toThrow(refusedAt('networks.mesh.ipam.config'));
  });

  test('another bridge name, subnet, masquerade or network key is refused', () => {
    const compiled = (text: string, networks = fabricNetworks) => check(text, { form: 'compiled', fabricNetworks: networks });
    expect(compiled(fabricNetwork(FABRIC_OPTIONS.replace('pnf3', 'docker0')))).toThrow(refusedAt('networks.mesh.driver_opts.com.docker.network.bridge.name'));
    expect(compiled(fabricNetwork(FABRIC_OPTIONS, '10.0.0.0/8'))).toThrow(refusedAt('networks.mesh.ipam.config'));
    expect(compiled(fabricNetwork(FABRIC_OPTIONS.replace('"false"', '"true"')))).toThrow(refusedAt('networks.mesh.driver_opts.com.docker.network.bridge.enable_ip_masquerade'));
    expect(compiled(fabricNetwork(FABRIC_OPTIONS), new Map([['other', { bridge: 'pnf3', subnet: '10.210.3.0/24' }]]))).toThrow(refusedAt('networks.mesh.driver_opts.com.docker.network.bridge.name'));
    expect(compiled(fabricNetwork(FABRIC_OPTIONS).replace('[{subnet: 10.210.3.0/24}]', '[{subnet: 10.210.3.0/24, gateway: 10.210.3.9}]'))).toThrow(refusedAt('networks.mesh.ipam.config'));
  });
});

describe('platform projects', () => {
  test('get network_mode: host and nothing else', () => {
    expect(check(web('network_mode: host'), { platform: true })).not.toThrow();
    expect(check(web('network_mode: host'))).toThrow(refusedAt('services.web.network_mode'));
    expect(check(web('privileged: true'), { platform: true })).toThrow(refusedAt('services.web.privileged'));
    expect(check(web('volumes: ["/etc:/etc"]'), { platform: true })).toThrow(refusedAt('services.web.volumes.0'));
  });
});

describe('host paths reported to the daemon', () => {
  test('every accepted path, with what it is used for and whether a container can write it', () => {
    const uses: HostPathUse[] = [];
    const text = web(
      'volumes: [./data:/data, "./conf:/etc/app:ro", {type: bind, source: ./logs, target: /logs, read_only: false}, cache:/cache]\n    env_file: ./app.env\n    build: ./src',
    );
    checkComposePolicy(model(`${text}volumes: {cache: {}}\nsecrets: {s: {file: ./s.txt}}\n`), { hostAccess: false, onHostPath: (use) => uses.push(use) });
    expect(uses).toEqual([
      { path: 'services.web.volumes.0', value: './data', kind: 'bind', writable: true },
      { path: 'services.web.volumes.1', value: './conf', kind: 'bind', writable: false },
      { path: 'services.web.volumes.2.source', value: './logs', kind: 'bind', writable: true },
      { path: 'services.web.env_file', value: './app.env', kind: 'file', writable: false },
      { path: 'services.web.build', value: './src', kind: 'context', writable: false },
      { path: 'secrets.s.file', value: './s.txt', kind: 'file', writable: false },
    ]);
  });
});
