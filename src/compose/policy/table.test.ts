import { expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { policyTable } from './table.ts';

test("docs/SECURITY.md's policy table is the registry's (regenerate it with policyTable() when a rule changes)", () => {
  const doc = readFileSync(join(import.meta.dir, '../../../docs/SECURITY.md'), 'utf8');
  const documented = /<!-- policy-table:start -->\n([\s\S]*?)<!-- policy-table:end -->/.exec(doc)?.[1];
  expect(documented).toBe(policyTable());
});

test('every restricted rule says why', () => {
  const rows = policyTable().split('\n').filter((line) => line.startsWith('| `'));
  expect(rows.length).toBeGreaterThan(50);
  for (const row of rows) expect(row).toMatch(/\| [^|]+ \| (checked|host access|never) \| \S[^|]* \|$/);
});
