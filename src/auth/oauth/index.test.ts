import { describe, expect, test } from 'bun:test';
import { ConfigError, loadConfig } from '../../config.ts';
import { ManualClock } from '../../lib/clock.ts';
import { configuredProviders, safeReturnTo } from './index.ts';

const PUBLIC_URL = 'https://panel.example.test';

describe('safeReturnTo', () => {
  test('keeps same-origin paths (normalized)', () => {
    expect(safeReturnTo('/', PUBLIC_URL)).toBe('/');
    expect(safeReturnTo('/projects/1?tab=env#vars', PUBLIC_URL)).toBe('/projects/1?tab=env#vars');
    expect(safeReturnTo('/a/./b/../c', PUBLIC_URL)).toBe('/a/c');
    expect(safeReturnTo('/%2F%2Fhost', PUBLIC_URL)).toBe('/%2F%2Fhost');
  });

  test('refuses anything that could leave the origin', () => {
    const attempts = [
      '//evil.com', '///evil.com', '/\\evil.com', '\\/evil.com', '\\\\evil.com', '/.//evil.com', '/%2e//evil.com', '/a/..//evil.com',
      'https://evil.com', 'http:evil.com', 'javascript:alert(1)', 'data:text/html,x', 'evil.com', '', ' /x', '/x y', '/\nLocation: x', '/\u00e9',
      `/${'a'.repeat(512)}`,
    ];
    for (const value of attempts) expect({ value, result: safeReturnTo(value, PUBLIC_URL) }).toEqual({ value, result: '/' });
    for (const value of [null, undefined, 42, ['/'], { path: '/' }]) expect(safeReturnTo(value, PUBLIC_URL)).toBe('/');
  });
});

describe('OAuth configuration', () => {
  const ring = `k1:${Buffer.alloc(32, 1).toString('base64')}`;
  const load = (env: Record<string, string>) => loadConfig({ PANEL_SECRETS: ring, ...env }, () => ring);
  const problemsOf = (env: Record<string, string>) => {
    try {
      load(env);
      return [];
    } catch (error) {
      if (error instanceof ConfigError) return error.problems;
      throw error;
    }
  };

  test('nothing configured: no providers', () => {
    expect(load({}).oauth).toEqual({});
    expect(configuredProviders(load({}).oauth, { clock: new ManualClock() }).size).toBe(0);
  });

  test('GitHub with defaults, OIDC with its name; both become providers', () => {
    const config = load({
      PANEL_OAUTH_GITHUB_CLIENT_ID: 'gh-id',
      PANEL_OAUTH_GITHUB_CLIENT_SECRET: 'gh-secret',
      PANEL_OAUTH_OIDC_ISSUER: 'https://id.example.test/realms/main',
      PANEL_OAUTH_OIDC_CLIENT_ID: 'oidc-id',
      PANEL_OAUTH_OIDC_CLIENT_SECRET: 'oidc-secret',
      PANEL_OAUTH_OIDC_NAME: 'Company SSO',
    });
    expect(config.oauth).toEqual({
      github: { clientId: 'gh-id', clientSecret: 'gh-secret', baseUrl: 'https://github.com', apiUrl: 'https://api.github.com' },
      oidc: { issuer: 'https://id.example.test/realms/main', clientId: 'oidc-id', clientSecret: 'oidc-secret', name: 'Company SSO' },
    });
    const providers = configuredProviders(config.oauth, { clock: new ManualClock() });
    expect([...providers.values()].map((p) => [p.id, p.name])).toEqual([['github', 'GitHub'], ['oidc', 'Company SSO']]);
  });

  test('endpoint overrides (GitHub Enterprise, tests); trailing slashes dropped', () => {
    const config = load({
      PANEL_OAUTH_GITHUB_CLIENT_ID: 'a',
      PANEL_OAUTH_GITHUB_CLIENT_SECRET: 'b',
      PANEL_OAUTH_GITHUB_BASE_URL: 'https://github.corp.example/',
      PANEL_OAUTH_GITHUB_API_URL: 'http://127.0.0.1:9000/api/v3',
    });
    expect(config.oauth.github).toMatchObject({ baseUrl: 'https://github.corp.example', apiUrl: 'http://127.0.0.1:9000/api/v3' });
  });

  test('half a provider, plain http to a remote host, and URLs with queries are refused', () => {
    expect(problemsOf({ PANEL_OAUTH_GITHUB_CLIENT_ID: 'a' })[0]).toContain('PANEL_OAUTH_GITHUB_CLIENT_SECRET');
    expect(problemsOf({ PANEL_OAUTH_OIDC_ISSUER: 'https://id.example', PANEL_OAUTH_OIDC_CLIENT_ID: 'a' })[0]).toContain('PANEL_OAUTH_OIDC_CLIENT_SECRET');
    const oidc = { PANEL_OAUTH_OIDC_CLIENT_ID: 'a', PANEL_OAUTH_OIDC_CLIENT_SECRET: 'b' };
    expect(problemsOf({ ...oidc, PANEL_OAUTH_OIDC_ISSUER: 'http://id.example' })[0]).toStartWith('PANEL_OAUTH_OIDC_ISSUER must use https');
    expect(problemsOf({ ...oidc, PANEL_OAUTH_OIDC_ISSUER: 'https://id.example?x=1' })[0]).toContain('query');
    expect(problemsOf({ ...oidc, PANEL_OAUTH_OIDC_ISSUER: 'not a url' })[0]).toStartWith('PANEL_OAUTH_OIDC_ISSUER');
    expect(problemsOf({ ...oidc, PANEL_OAUTH_OIDC_ISSUER: 'http://localhost:8080/realms/x' })).toEqual([]);
    const problems = problemsOf({ PANEL_OAUTH_GITHUB_CLIENT_ID: 'a', PANEL_OAUTH_GITHUB_CLIENT_SECRET: 'b', PANEL_OAUTH_GITHUB_BASE_URL: 'http://github.example' });
    expect(problems.join('\n')).not.toContain('b"');
  });
});
