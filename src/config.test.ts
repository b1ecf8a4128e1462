import { describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './config.ts';

const ring = 'k1:' + Buffer.alloc(32, 1).toString('base64');
const generate = () => 'gen:' + Buffer.alloc(32, 2).toString('base64');
const problemsOf = (env: Record<string, string>) => {
  try {
    loadConfig(env, generate);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
};

describe('configuration', () => {
  test('defaults: ./data, 127.0.0.1:3000, self-hosted, signup off, socket in the data dir', () => {
    const config = loadConfig({ PANEL_SECRETS: ring }, generate);
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 3000,
      runtime: 'self-hosted',
      isSignupEnabled: false,
      publicUrl: 'http://127.0.0.1:3000',
      logLevel: 'info',
      maxBodyBytes: 1024 * 1024,
      trustedProxies: [],
    });
    expect(config.dataDir).toBe(join(process.cwd(), 'data'));
    expect(config.daemonSocket).toBe(join(process.cwd(), 'data', 'daemon.sock'));
    expect(config.localDaemonCredentialFile).toBe(join(process.cwd(), 'data', 'local-daemon.credential'));
  });

  test('PANEL_TRUSTED_PROXIES: addresses and CIDR ranges, comma or space separated; anything else is refused', () => {
    const config = loadConfig({ PANEL_SECRETS: ring, PANEL_TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/8 fd00::/8  ::1' }, generate);
    expect(config.trustedProxies).toEqual(['127.0.0.1', '10.0.0.0/8', 'fd00::/8', '::1']);
    for (const bad of ['localhost', '10.0.0.0/33', 'fd00::/129', '10.0.0.0/8/1', '10.0.0.0/x', '*']) {
      expect(problemsOf({ PANEL_SECRETS: ring, PANEL_TRUSTED_PROXIES: bad })).toEqual([`PANEL_TRUSTED_PROXIES: "${bad}" is not an IP address or CIDR range`]);
    }
  });

  test('every bad value is reported at once, by name', () => {
    const problems = problemsOf({
      PANEL_SECRETS: ring,
      PANEL_PORT: '99999',
      PANEL_RUNTIME: 'prod',
      PANEL_IS_SIGNUP_ENABLED: 'maybe',
      PANEL_PUBLIC_URL: 'ftp://x',
      PANEL_LOG_LEVEL: 'loud',
      PANEL_MAX_BODY_BYTES: '0',
    });
    for (const name of ['PANEL_PORT', 'PANEL_RUNTIME', 'PANEL_IS_SIGNUP_ENABLED', 'PANEL_PUBLIC_URL', 'PANEL_LOG_LEVEL', 'PANEL_MAX_BODY_BYTES']) {
      expect(problems.some((p) => p.startsWith(name))).toBe(true);
    }
  });

  test('the public URL must be a bare origin', () => {
    expect(problemsOf({ PANEL_SECRETS: ring, PANEL_PUBLIC_URL: 'https://panel.example/sub' })).toHaveLength(1);
    expect(loadConfig({ PANEL_SECRETS: ring, PANEL_PUBLIC_URL: 'https://panel.example/' }, generate).publicUrl).toBe('https://panel.example');
  });

  test('the ingress image: the official Caddy by default, any image reference, nothing a shell or YAML could misread', () => {
    expect(loadConfig({ PANEL_SECRETS: ring }, generate).ingressImage).toBe('caddy:2.10');
    for (const image of ['local/caddy:1', 'registry.example:5000/ops/caddy:2.10-alpine', `caddy@sha256:${'a'.repeat(64)}`]) {
      expect(loadConfig({ PANEL_SECRETS: ring, PANEL_INGRESS_IMAGE: image }, generate).ingressImage).toBe(image);
    }
    for (const image of ['Caddy:2', 'caddy:2; rm -rf /', 'caddy:2\nports: []', 'caddy: 2']) {
      expect(problemsOf({ PANEL_SECRETS: ring, PANEL_INGRESS_IMAGE: image })[0]).toContain('PANEL_INGRESS_IMAGE');
    }
  });

  test('a socket path over the kernel limit is refused', () => {
    expect(problemsOf({ PANEL_SECRETS: ring, PANEL_DAEMON_SOCKET: '/' + 'x'.repeat(120) })[0]).toContain('PANEL_DAEMON_SOCKET');
  });

  test('the self-hosted runtime requires a key ring', () => {
    expect(problemsOf({})[0]).toContain('PANEL_SECRETS');
  });

  test('PANEL_SECRETS_FILE supplies the key ring; an unreadable file is a problem', () => {
    const dir = mkdtempSync(join(tmpdir(), 'panel-config-'));
    const file = join(dir, 'ring');
    writeFileSync(file, `${ring}\n`);
    expect(loadConfig({ PANEL_SECRETS_FILE: file }, generate).secrets).toBe(ring);
    expect(problemsOf({ PANEL_SECRETS_FILE: join(dir, 'missing') })[0]).toContain('cannot be read');
  });

  test('the development runtime generates a key ring once, mode 0600, and reuses it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'panel-config-'));
    let generated = 0;
    const counting = () => {
      generated += 1;
      return generate();
    };
    const first = loadConfig({ PANEL_RUNTIME: 'development', PANEL_DATA_DIR: dir }, counting);
    const second = loadConfig({ PANEL_RUNTIME: 'development', PANEL_DATA_DIR: dir }, counting);
    expect(generated).toBe(1);
    expect(second.secrets).toBe(first.secrets);
    expect(readFileSync(join(dir, 'secrets.key'), 'utf8').trim()).toBe(first.secrets);
    expect(statSync(join(dir, 'secrets.key')).mode & 0o777).toBe(0o600);
  });
});
