import { describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serverCertificate, testCa } from '../../test/certificates.ts';
import { coversHostname, generateCaddyConfig, type IngressLayout, type ObservedContainer } from './caddy-config.ts';
import type { IngressPayload, IngressRoute } from '../contract/ingress.ts';

const SHOP = '0190a000-0000-7000-8000-000000000001';
const API = '0190a000-0000-7000-8000-000000000002';
const HOSTING_A = '0190a000-0000-7000-8000-00000000000a';
const HOSTING_B = '0190a000-0000-7000-8000-00000000000b';
const HOSTING_C = '0190a000-0000-7000-8000-00000000000c';
const CERT = '0190a000-0000-7000-8000-0000000000ce';

const layout = (overrides: Partial<IngressLayout> = {}): IngressLayout => ({
  adminSocket: '/run/panel-ingress/admin.sock',
  storage: '/data/caddy',
  certificatesLog: '/var/log/panel-ingress/certificates.log',
  libraryFiles: new Map(),
  directoryRootsFile: null,
  authorityName: 'Acme h1 (serial 01)',
  ...overrides,
});

const route = (overrides: Partial<IngressRoute> = {}): IngressRoute => ({
  hostingId: HOSTING_A,
  serviceId: SHOP,
  hostnames: ['shop.example.test'],
  pathPrefix: null,
  targetPort: 8080,
  bind: 'public',
  tls: { kind: 'internal' },
  ...overrides,
});

const container = (overrides: Partial<ObservedContainer> = {}): ObservedContainer => ({
  serviceId: SHOP,
  name: 'shop-1',
  address: '172.18.0.2',
  exposedPorts: [],
  ready: true,
  condition: 'running',
  ...overrides,
});

const payload = (routes: IngressRoute[], extra: Partial<IngressPayload> = {}) => ({ routes, certificates: [], acme: null, ...extra });

type AnyJson = any;
const serversOf = (config: AnyJson) => config.apps.http.servers;
const handlerOf = (config: AnyJson, server: 'https' | 'http', index: number) => serversOf(config)[server].routes[index].handle[0];

describe('routes', () => {
  test('hostnames x path prefix to the ready containers of the service, round robin', () => {
    const { config, routes } = generateCaddyConfig(
      payload([route({ hostnames: ['shop.example.test', 'www.shop.example.test'], pathPrefix: '/api/' })]),
      [container(), container({ name: 'shop-2', address: '172.18.0.3' }), container({ name: 'shop-3', address: '172.18.0.4', ready: false, condition: 'starting' })],
      layout(),
    );
    const https: AnyJson = serversOf(config).https;
    expect(https.listen).toEqual([':443']);
    expect(https.routes[0].match).toEqual([{ host: ['shop.example.test', 'www.shop.example.test'], path: ['/api', '/api/*'] }]);
    expect(https.routes[0].handle[0]).toMatchObject({
      handler: 'reverse_proxy',
      upstreams: [{ dial: '172.18.0.2:8080' }, { dial: '172.18.0.3:8080' }],
      load_balancing: { selection_policy: { policy: 'round_robin' } },
      health_checks: { passive: { max_fails: 1 } },
    });
    expect(https.routes.at(-1).handle[0]).toMatchObject({ handler: 'static_response', status_code: 404 });
    expect(routes).toEqual([{ hostingId: HOSTING_A, upstreams: 2, containers: 3, problem: null }]);
  });

  test('several services, each to its own containers; other services never mix in', () => {
    const { config } = generateCaddyConfig(
      payload([route(), route({ hostingId: HOSTING_B, serviceId: API, hostnames: ['api.example.test'], targetPort: 9000 })]),
      [container(), container({ serviceId: API, name: 'api-1', address: '172.19.0.5' })],
      layout(),
    );
    expect(handlerOf(config, 'https', 0).upstreams).toEqual([{ dial: '172.18.0.2:8080' }]);
    expect(handlerOf(config, 'https', 1).upstreams).toEqual([{ dial: '172.19.0.5:9000' }]);
  });

  test('no container here, none ready, or no reachable port: 503 with the reason, and the state says it', () => {
    const cases: [ObservedContainer[], IngressRoute, RegExp][] = [
      [[], route(), /^no container of this service runs on this server$/m],
      [[container({ ready: false, condition: 'unhealthy' }), container({ ready: false, condition: 'starting' })], route(), /^no container of this service is ready \(starting, unhealthy\)$/m],
      [[container({ exposedPorts: [80, 443] })], route({ targetPort: null }), /exposes 2 ports: set the hosting's targetPort/],
      [[container({ address: null })], route(), /has no network address/],
    ];
    for (const [observed, given, reason] of cases) {
      const { config, routes } = generateCaddyConfig(payload([given]), observed, layout());
      const handler = handlerOf(config, 'https', 0);
      expect(handler).toMatchObject({ handler: 'static_response', status_code: 503, headers: { 'Retry-After': ['5'] } });
      expect(handler.body).toMatch(reason);
      expect(routes[0]!.upstreams).toBe(0);
      expect(routes[0]!.problem).toMatch(reason);
    }
  });

  test('without targetPort the one exposed port is used; host networking dials loopback; IPv6 is bracketed', () => {
    const { config } = generateCaddyConfig(
      payload([route({ targetPort: null })]),
      [container({ exposedPorts: [3000] }), container({ name: 'shop-2', address: '127.0.0.1', exposedPorts: [3000] }), container({ name: 'shop-3', address: 'fd00::5', exposedPorts: [3000] })],
      layout(),
    );
    expect(handlerOf(config, 'https', 0).upstreams).toEqual([{ dial: '172.18.0.2:3000' }, { dial: '127.0.0.1:3000' }, { dial: '[fd00::5]:3000' }]);
  });

  test('exact hostnames before wildcards, longer prefixes first', () => {
    const { config } = generateCaddyConfig(
      payload([
        route({ hostingId: HOSTING_A, hostnames: ['*.example.test', 'example.test'] }),
        route({ hostingId: HOSTING_B, hostnames: ['app.example.test'], pathPrefix: '/' }),
        route({ hostingId: HOSTING_C, hostnames: ['docs.example.test'], pathPrefix: '/v1/api' }),
      ]),
      [container()],
      layout(),
    );
    const hosts = serversOf(config).https.routes.slice(0, -1).map((entry: AnyJson) => entry.match[0].host);
    expect(hosts).toEqual([['docs.example.test'], ['example.test'], ['app.example.test'], ['*.example.test']]);
    expect(serversOf(config).https.routes[2].match[0].path).toBeUndefined();
  });

  test('bind scopes narrow who may use the route', () => {
    const { config } = generateCaddyConfig(
      payload([route({ bind: 'local' }), route({ hostingId: HOSTING_B, hostnames: ['b.example.test'], bind: 'datacenter' })]),
      [container()],
      layout(),
    );
    const [local, datacenter] = serversOf(config).https.routes;
    expect(local.match[0].remote_ip).toEqual({ ranges: ['127.0.0.0/8', '::1/128'] });
    expect(datacenter.match[0].remote_ip.ranges).toContain('10.0.0.0/8');
    expect(datacenter.match[0].remote_ip.ranges).toContain('fc00::/7');
  });

  test(':80 redirects every https hostname, serves tls:none routes itself, and 404s the rest', () => {
    const { config, certificates } = generateCaddyConfig(
      payload([route(), route({ hostingId: HOSTING_B, hostnames: ['plain.example.test'], tls: { kind: 'none' } })]),
      [container()],
      layout(),
    );
    const http: AnyJson = serversOf(config).http;
    expect(http.listen).toEqual([':80']);
    expect(http.routes[0].match[0].host).toEqual(['plain.example.test']);
    expect(http.routes[0].handle[0].handler).toBe('reverse_proxy');
    expect(http.routes[1]).toMatchObject({ match: [{ host: ['shop.example.test'] }], handle: [{ status_code: 308, headers: { Location: ['https://{http.request.host}{http.request.uri}'] } }] });
    expect(http.routes[2].handle[0].status_code).toBe(404);
    expect(serversOf(config).https.routes.map((entry: AnyJson) => entry.match?.[0].host)).toEqual([['shop.example.test'], undefined]);
    expect(serversOf(config).https.automatic_https.disable_redirects).toBe(true);
    expect(certificates.find((entry) => entry.hostname === 'plain.example.test')!.source).toBe('none');
  });

  test('no routes: no http app at all (Caddy listens nowhere), admin on the unix socket only', () => {
    const { config } = generateCaddyConfig(payload([]), [], layout());
    expect((config.apps as AnyJson).http).toBeUndefined();
    expect(config.admin).toEqual({ listen: 'unix//run/panel-ingress/admin.sock', origins: ['panel-ingress'], config: { persist: false } });
  });

  test('the same input gives the same configuration', () => {
    const input = payload([route(), route({ hostingId: HOSTING_B, hostnames: ['b.example.test'] })]);
    expect(JSON.stringify(generateCaddyConfig(input, [container()], layout()).config)).toBe(JSON.stringify(generateCaddyConfig(structuredClone(input), [container()], layout()).config));
  });
});

describe('certificates', () => {
  const library = { id: CERT, certificate: '-----BEGIN CERTIFICATE-----', key: 'pndaemon.v1.x', names: ['shop.example.test', '*.shop.example.test'] };
  const files = new Map([[CERT, { certificate: '/etc/panel-ingress/files/ce.crt', key: '/etc/panel-ingress/files/ce.key' }]]);

  test('library, internal and ACME sources each get their policy; a catch-all keeps public issuers away', () => {
    const { config, certificates } = generateCaddyConfig(
      payload(
        [
          route({ hostnames: ['shop.example.test', 'www.shop.example.test', 'other.example.test'], tls: { kind: 'library', certificateId: CERT } }),
          route({ hostingId: HOSTING_B, hostnames: ['int.example.test'], tls: { kind: 'internal' } }),
          route({ hostingId: HOSTING_C, hostnames: ['pub.example.test', '*.pub.example.test'], tls: { kind: 'acme' } }),
        ],
        { certificates: [library], acme: { directoryUrl: 'https://acme.example.test/dir', email: 'ops@example.test', directoryRoots: '-----BEGIN CERTIFICATE-----' } },
      ),
      [container()],
      layout({ libraryFiles: files, directoryRootsFile: '/etc/panel-ingress/files/acme-roots.pem' }),
    );
    const tls: AnyJson = (config.apps as AnyJson).tls;
    expect(tls.certificates.load_files).toEqual([{ certificate: '/etc/panel-ingress/files/ce.crt', key: '/etc/panel-ingress/files/ce.key', tags: [`panel-${CERT}`] }]);
    expect(tls.automation.policies).toEqual([
      { subjects: ['int.example.test', '*.pub.example.test'], issuers: [{ module: 'internal', ca: 'panel', sign_with_root: true }] },
      {
        subjects: ['pub.example.test'],
        issuers: [{ module: 'acme', ca: 'https://acme.example.test/dir', email: 'ops@example.test', trusted_roots_pem_files: ['/etc/panel-ingress/files/acme-roots.pem'] }],
      },
      { issuers: [{ module: 'internal', ca: 'panel', sign_with_root: true }] },
    ]);
    expect(serversOf(config).https.automatic_https.skip_certificates).toEqual(['shop.example.test', 'www.shop.example.test', 'other.example.test']);
    expect((config.apps as AnyJson).pki).toEqual({ certificate_authorities: { panel: { name: 'Acme h1 (serial 01)', install_trust: false } } });
    const byName = Object.fromEntries(certificates.map((entry) => [entry.hostname, entry]));
    expect(byName['www.shop.example.test']).toMatchObject({ source: 'library', problem: null });
    expect(byName['other.example.test']!.problem).toMatch(/is not valid for other\.example\.test/);
    expect(byName['*.pub.example.test']).toMatchObject({ source: 'internal' });
    expect(byName['*.pub.example.test']!.problem).toMatch(/wildcard/);
    expect(byName['pub.example.test']).toMatchObject({ source: 'acme', problem: null });
  });

  test('ACME asked for without settings falls back to internal and says so', () => {
    const { certificates, config } = generateCaddyConfig(payload([route({ tls: { kind: 'acme' } })]), [container()], layout());
    expect(certificates[0]).toMatchObject({ source: 'internal' });
    expect(certificates[0]!.problem).toMatch(/ACME settings were not delivered/);
    expect(JSON.stringify(config)).not.toContain('"acme"');
  });

  test('coverage follows TLS wildcard rules', () => {
    const names = ['shop.example.test', '*.api.example.test'];
    expect(coversHostname(names, 'SHOP.example.test')).toBe(true);
    expect(coversHostname(names, 'v1.api.example.test')).toBe(true);
    expect(coversHostname(names, 'a.v1.api.example.test')).toBe(false);
    expect(coversHostname(names, 'api.example.test')).toBe(false);
    expect(coversHostname(['v1.api.example.test'], '*.api.example.test')).toBe(false);
    expect(coversHostname(names, '*.API.example.test')).toBe(true);
  });
});

/** Caddy itself accepts what the generator writes (`caddy validate`, when Caddy is installed). */
const caddy = Bun.which('caddy');
test.skipIf(!caddy)('Caddy validates a generated configuration with every kind of source', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'panel-caddy-'));
  try {
    const ca = testCa('Server CA');
    mkdirSync(join(dir, 'data/pki/authorities/panel'), { recursive: true });
    writeFileSync(join(dir, 'data/pki/authorities/panel/root.crt'), ca.pem);
    writeFileSync(join(dir, 'data/pki/authorities/panel/root.key'), ca.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
    const uploaded = serverCertificate({ names: ['shop.example.test'] });
    writeFileSync(join(dir, 'shop.crt'), uploaded.chain);
    writeFileSync(join(dir, 'shop.key'), uploaded.key);
    writeFileSync(join(dir, 'roots.pem'), ca.pem);
    const { config } = generateCaddyConfig(
      payload(
        [
          route({ tls: { kind: 'library', certificateId: CERT } }),
          route({ hostingId: HOSTING_B, hostnames: ['int.example.test', '*.int.example.test'], pathPrefix: '/api', bind: 'local' }),
          route({ hostingId: HOSTING_C, serviceId: API, hostnames: ['pub.example.test'], tls: { kind: 'acme' }, bind: 'datacenter' }),
          route({ hostingId: '0190a000-0000-7000-8000-0000000000dd', hostnames: ['plain.example.test'], tls: { kind: 'none' } }),
        ],
        {
          certificates: [{ id: CERT, certificate: uploaded.chain, key: 'pndaemon.v1.x', names: ['shop.example.test'] }],
          acme: { directoryUrl: 'https://acme.example.test/dir', email: 'ops@example.test', directoryRoots: ca.pem },
        },
      ),
      [container()],
      layout({
        adminSocket: join(dir, 'admin.sock'),
        storage: join(dir, 'data'),
        certificatesLog: join(dir, 'certificates.log'),
        libraryFiles: new Map([[CERT, { certificate: join(dir, 'shop.crt'), key: join(dir, 'shop.key') }]]),
        directoryRootsFile: join(dir, 'roots.pem'),
      }),
    );
    writeFileSync(join(dir, 'caddy.json'), JSON.stringify(config));
    const child = Bun.spawn([caddy!, 'validate', '--config', join(dir, 'caddy.json')], { stdout: 'pipe', stderr: 'pipe', env: { HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir } });
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    expect(`${stdout}${stderr}`).toContain('Valid configuration');
    expect(code).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
