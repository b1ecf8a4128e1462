import { describe, expect, test } from 'bun:test';
import { type ResolvedVariable, resolveVariables, type ServiceScopeChain, type VariableRow, type VariableScope } from './variables.ts';

const chain: ServiceScopeChain = {
  serviceId: 'svc-web',
  organizationId: 'org',
  workspaceId: 'ws',
  projectId: 'prj',
  environmentId: 'env',
  hostingIds: ['hosting-old', 'hosting-new'],
};
const otherService: ServiceScopeChain = { ...chain, serviceId: 'svc-worker', hostingIds: [] };

/** Scope parents from lowest to highest precedence, as resolveVariables layers them for `chain` on server-1. */
const LAYERS: [VariableScope, string][] = [
  ['server', 'server-1'],
  ['organization', 'org'],
  ['workspace', 'ws'],
  ['project', 'prj'],
  ['environment', 'env'],
  ['service', 'svc-web'],
  ['hosting', 'hosting-old'],
  ['hosting', 'hosting-new'],
];

function variable(scope: VariableScope, scopeId: string, key: string, value: string, flags: Partial<VariableRow> = {}): VariableRow {
  return {
    id: `${scope}:${scopeId}:${key}`,
    key,
    value,
    isSecret: false,
    isLiteral: false,
    forBuild: false,
    forRuntime: true,
    scope,
    scopeId,
    ...flags,
  };
}

const byKey = (entries: ResolvedVariable[] | undefined) => new Map((entries ?? []).map((entry) => [entry.key, entry]));

describe('resolveVariables: precedence', () => {
  test('each layer overrides every layer below it: server < organization < ... < service < hostings in order', () => {
    // Key K<i> is set at layer i and every layer below it: the value must come from layer i.
    const rows = LAYERS.flatMap((_, top) =>
      LAYERS.slice(0, top + 1).map(([scope, scopeId]) => variable(scope, scopeId, `K${top}`, `${scope}/${scopeId}`)),
    );
    const resolved = byKey(resolveVariables(rows, [chain], 'server-1').get('svc-web'));
    LAYERS.forEach(([scope, scopeId], top) => {
      const entry = resolved.get(`K${top}`)!;
      expect({ value: entry.value, scope: entry.scope, scopeId: entry.scopeId }).toEqual({ value: `${scope}/${scopeId}`, scope, scopeId });
      expect(entry.variableId).toBe(`${scope}:${scopeId}:K${top}`);
      // The shadowed rows are the ones below, nearest first.
      expect(entry.shadowed.map((source) => source.scopeId)).toEqual(LAYERS.slice(0, top).map(([, id]) => id).reverse());
    });
  });

  test('the later hosting wins whatever order the rows come in', () => {
    const rows = [variable('hosting', 'hosting-new', 'URL', 'new'), variable('hosting', 'hosting-old', 'URL', 'old')];
    expect(byKey(resolveVariables(rows, [chain], 'server-1').get('svc-web')).get('URL')!.value).toBe('new');
    const reversed = { ...chain, hostingIds: ['hosting-new', 'hosting-old'] };
    expect(byKey(resolveVariables(rows, [reversed], 'server-1').get('svc-web')).get('URL')!.value).toBe('old');
  });

  test('a hosting listed twice counts once, at its last position', () => {
    const rows = [variable('hosting', 'hosting-new', 'URL', 'new'), variable('hosting', 'hosting-old', 'URL', 'old')];
    const repeated = { ...chain, hostingIds: ['hosting-old', 'hosting-new', 'hosting-old'] };
    const entry = byKey(resolveVariables(rows, [repeated], 'server-1').get('svc-web')).get('URL')!;
    expect(entry.value).toBe('old');
    expect(entry.shadowed).toHaveLength(1);
  });

  test('server-scope variables apply only on the target server, under organization', () => {
    const rows = [
      variable('server', 'server-1', 'REGION', 'eu'),
      variable('server', 'server-2', 'REGION', 'us'),
      variable('server', 'server-2', 'ONLY_ON_2', 'x'),
      variable('server', 'server-1', 'TZ', 'UTC'),
      variable('organization', 'org', 'TZ', 'Europe/Berlin'),
    ];
    const onOne = byKey(resolveVariables(rows, [chain], 'server-1').get('svc-web'));
    expect(onOne.get('REGION')!.value).toBe('eu');
    expect(onOne.get('TZ')).toMatchObject({ value: 'Europe/Berlin', scope: 'organization' });
    expect(onOne.has('ONLY_ON_2')).toBe(false);
    const onTwo = byKey(resolveVariables(rows, [chain], 'server-2').get('svc-web'));
    expect(onTwo.get('REGION')!.value).toBe('us');
    expect(onTwo.get('ONLY_ON_2')!.value).toBe('x');
  });

  test('service and hosting rows reach only their own service; wider scopes reach every service', () => {
    const rows = [
      variable('environment', 'env', 'SHARED', 'yes'),
      variable('service', 'svc-web', 'WEB_ONLY', 'yes'),
      variable('hosting', 'hosting-old', 'HOSTING_ONLY', 'yes'),
      variable('project', 'another-project', 'FOREIGN', 'no'),
    ];
    const resolved = resolveVariables(rows, [chain, otherService], 'server-1');
    expect([...byKey(resolved.get('svc-web')).keys()]).toEqual(['HOSTING_ONLY', 'SHARED', 'WEB_ONLY']);
    expect([...byKey(resolved.get('svc-worker')).keys()]).toEqual(['SHARED']);
  });
});

describe('resolveVariables: entries', () => {
  test('keys are case-sensitive and sorted, independent of row order', () => {
    const rows = [variable('project', 'prj', 'b', '1'), variable('project', 'prj', 'B', '2'), variable('organization', 'org', 'A', '3')];
    const keys = (list: VariableRow[]) => resolveVariables(list, [chain], 'server-1').get('svc-web')!.map((entry) => entry.key);
    expect(keys(rows)).toEqual(['A', 'B', 'b']);
    expect(keys([...rows].reverse())).toEqual(['A', 'B', 'b']);
  });

  test('a secret never carries its value; the flags of the winning row are kept', () => {
    const rows = [
      variable('organization', 'org', 'TOKEN', 'plain-default'),
      variable('service', 'svc-web', 'TOKEN', 'SENTINEL-sealed-or-plain', { isSecret: true, forBuild: true, forRuntime: false }),
    ];
    const entry = resolveVariables(rows, [chain], 'server-1').get('svc-web')![0]!;
    expect(entry).toEqual({
      key: 'TOKEN',
      value: null,
      isSecret: true,
      isLiteral: false,
      forBuild: true,
      forRuntime: false,
      variableId: 'service:svc-web:TOKEN',
      scope: 'service',
      scopeId: 'svc-web',
      shadowed: [{ variableId: 'organization:org:TOKEN', scope: 'organization', scopeId: 'org' }],
    });
    expect(JSON.stringify(entry)).not.toContain('SENTINEL');
  });

  test('a non-secret without a value resolves to the empty string; a service with no rows to none', () => {
    const rows = [{ ...variable('project', 'prj', 'EMPTY', ''), value: undefined }];
    const resolved = resolveVariables(rows, [chain, { ...otherService, projectId: 'elsewhere' }], 'server-1');
    expect(resolved.get('svc-web')![0]!.value).toBe('');
    expect(resolved.get('svc-worker')).toEqual([]);
  });
});
