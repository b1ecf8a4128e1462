/**
 * The policy as Markdown, from the registry itself: docs/SECURITY.md holds this text and
 * table.test.ts keeps the two equal, so the documented policy is the enforced one.
 */
import { rootRule } from './registry.ts';
import type { Rule } from './rule.ts';

const ACCESS_LABEL = { checked: 'checked', host: 'host access', refused: 'never' } as const;

interface Row {
  path: string;
  rule: Rule;
}

/** Every rule below the root with its path (`*` for a name, `[]` for an item). */
function rowsOf(rule: Rule, path: string): Row[] {
  const rows: Row[] = path === '' ? [] : [{ path, rule }];
  if (rule.access === 'host' || rule.access === 'refused') return rows;
  for (const [key, child] of Object.entries(rule.keys ?? {})) rows.push(...rowsOf(child, path === '' ? key : `${path}.${key}`));
  if (rule.entries !== undefined) rows.push(...rowsOf(rule.entries, `${path}.*`));
  if (rule.items !== undefined) rows.push(...rowsOf(rule.items, `${path}[]`));
  return rows;
}

export function policyTable(): string {
  const rows = rowsOf(rootRule, '');
  const restricted = rows.filter(({ rule }) => rule.access !== 'allowed');
  const lines = ['| Setting | Without host access | What |', '|---|---|---|'];
  for (const { path, rule } of restricted) lines.push(`| \`${path}\` | ${ACCESS_LABEL[rule.access as keyof typeof ACCESS_LABEL]} | ${rule.why ?? ''} |`);
  const allowed = new Map<string, string[]>();
  for (const { path, rule } of rows) {
    if (rule.access !== 'allowed' || rule.keys !== undefined || rule.entries !== undefined || rule.items !== undefined) continue;
    const cut = path.lastIndexOf('.');
    const parent = cut === -1 ? '(top level)' : `\`${path.slice(0, cut)}\``;
    allowed.set(parent, [...(allowed.get(parent) ?? []), path.slice(cut + 1)]);
  }
  lines.push('', 'Allowed as written (Compose validates them): ');
  for (const [parent, keys] of allowed) lines.push(`- ${parent}: ${keys.join(', ')}`);
  return `${lines.join('\n')}\n`;
}
