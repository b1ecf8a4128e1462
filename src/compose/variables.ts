/**
 * Variable resolution per service, as the deploy compiler consumes it. Pure: rows come in as
 * plain objects, nothing is read from the database.
 *
 * Layers, lowest first (a later layer wins per key):
 *
 *   server < organization < workspace < project < environment < service < hosting(oldest) < ... < hosting(newest)
 *
 * The specification puts server-scope variables outside the inheritance chain, resolved per
 * server at deploy. They describe the host a service lands on (region, mirror, proxy), so they
 * apply to every service deployed on the target server and sit BELOW organization: anything the
 * tenant configures on its own resource tree overrides a host default, and a server variable
 * never silently replaces an application setting.
 *
 * Secret values never pass through: a resolved secret carries `value: null` whatever the caller
 * gave (the compiler only needs the variable id to deliver the sealed value as a file).
 */

export const VARIABLE_SCOPE_NAMES = ['organization', 'workspace', 'project', 'environment', 'service', 'hosting', 'server'] as const;
export type VariableScope = (typeof VARIABLE_SCOPE_NAMES)[number];

/** One variable row. `value` is plaintext for non-secrets; for secrets anything (or nothing): it is ignored. */
export interface VariableRow {
  id: string;
  key: string;
  value?: string | null;
  isSecret: boolean;
  isLiteral: boolean;
  forBuild: boolean;
  forRuntime: boolean;
  scope: VariableScope;
  /** Id of the scope parent (the organization, workspace, ... or server the row hangs off). */
  scopeId: string;
}

/** The scope parents of one service, from widest to narrowest. */
export interface ServiceScopeChain {
  serviceId: string;
  organizationId: string;
  workspaceId: string;
  projectId: string;
  environmentId: string;
  /** The service's hostings, oldest first: the later hosting wins. */
  hostingIds: readonly string[];
}

/** Where a value comes from. */
export interface VariableSource {
  variableId: string;
  scope: VariableScope;
  scopeId: string;
}

export interface ResolvedVariable extends VariableSource {
  key: string;
  /** The plaintext of a non-secret; always null for a secret. */
  value: string | null;
  isSecret: boolean;
  isLiteral: boolean;
  forBuild: boolean;
  forRuntime: boolean;
  /** Rows of the same key in lower layers that this one overrides, nearest first. */
  shadowed: VariableSource[];
}

const scopeKey = (scope: VariableScope, scopeId: string) => `${scope}\u0000${scopeId}`;

type Layer = [VariableScope, string];
type Winners = Map<string, ResolvedVariable>;

function resolvedFrom(row: VariableRow, below: ResolvedVariable | undefined): ResolvedVariable {
  return {
    key: row.key,
    value: row.isSecret ? null : (row.value ?? ''),
    isSecret: row.isSecret,
    isLiteral: row.isLiteral,
    forBuild: row.forBuild,
    forRuntime: row.forRuntime,
    variableId: row.id,
    scope: row.scope,
    scopeId: row.scopeId,
    shadowed: below === undefined ? [] : [{ variableId: below.variableId, scope: below.scope, scopeId: below.scopeId }, ...below.shadowed],
  };
}

const byKey = (a: ResolvedVariable, b: ResolvedVariable) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/**
 * Resolves every service's variables for a deploy on `serverId`. Returns, per service id, the
 * winning entries sorted by key (so the compiled document does not depend on row order). Keys
 * are case-sensitive, as environment variables are. Entries may be shared between services:
 * treat them as read-only.
 */
export function resolveVariables(
  rows: readonly VariableRow[],
  chains: readonly ServiceScopeChain[],
  serverId: string,
): Map<string, ResolvedVariable[]> {
  const rowsByScope = new Map<string, VariableRow[]>();
  for (const row of rows) {
    const key = scopeKey(row.scope, row.scopeId);
    const list = rowsByScope.get(key);
    if (list === undefined) rowsByScope.set(key, [row]);
    else list.push(row);
  }
  const applyLayers = (winners: Winners, layers: Layer[], below: (key: string) => ResolvedVariable | undefined) => {
    for (const [scope, scopeId] of layers) {
      for (const row of rowsByScope.get(scopeKey(scope, scopeId)) ?? []) {
        winners.set(row.key, resolvedFrom(row, winners.get(row.key) ?? below(row.key)));
      }
    }
  };

  // The services of one deploy share their layers up to the environment: resolve those once.
  const sharedLayers = new Map<string, { winners: Winners; sorted: ResolvedVariable[] }>();
  const resolved = new Map<string, ResolvedVariable[]>();
  for (const chain of chains) {
    const shared: Layer[] = [
      ['server', serverId],
      ['organization', chain.organizationId],
      ['workspace', chain.workspaceId],
      ['project', chain.projectId],
      ['environment', chain.environmentId],
    ];
    const sharedKey = shared.map(([, id]) => id).join('\u0000');
    let base = sharedLayers.get(sharedKey);
    if (base === undefined) {
      const winners: Winners = new Map();
      applyLayers(winners, shared, () => undefined);
      base = { winners, sorted: [...winners.values()].sort(byKey) };
      sharedLayers.set(sharedKey, base);
    }
    // A hosting listed twice still counts once, at its last position.
    const hostingIds = chain.hostingIds.filter((id, i) => chain.hostingIds.lastIndexOf(id) === i);
    const own: Winners = new Map();
    const baseWinners = base.winners;
    applyLayers(own, [['service', chain.serviceId], ...hostingIds.map((id): Layer => ['hosting', id])], (key) => baseWinners.get(key));
    resolved.set(chain.serviceId, mergeSorted(base.sorted, [...own.values()].sort(byKey)));
  }
  return resolved;
}

/** Both lists sorted by key; an entry of `overrides` replaces the `base` entry of its key. */
function mergeSorted(base: ResolvedVariable[], overrides: ResolvedVariable[]): ResolvedVariable[] {
  if (overrides.length === 0) return base.slice();
  const merged: ResolvedVariable[] = [];
  let i = 0;
  for (const override of overrides) {
    while (i < base.length && base[i]!.key < override.key) merged.push(base[i++]!);
    if (i < base.length && base[i]!.key === override.key) i++;
    merged.push(override);
  }
  while (i < base.length) merged.push(base[i++]!);
  return merged;
}
