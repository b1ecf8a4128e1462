/**
 * The import graph of src/ and web/ (docs/ARCHITECTURE.md): no cycle anywhere, type imports
 * and modules required when first needed (`require('./x.ts')`) included, and the pure layers stay pure: `contract` imports valibot only; `compose`,
 * `crypto`, `auth` and `fabric` (the allocator and peer configuration) import each other,
 * `contract` and `lib` but no application layer (database, domain, transport, hub);
 * `domain` never reaches the transport or the hub; the console imports from src/ only what is
 * browser-safe.
 */
import { describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { Glob } from 'bun';

const ROOT = resolve(import.meta.dir, '..');
const SPECIFIER = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|\b(?:import|require)\(\s*['"]([^'"]+)['"]\s*\)/g;

interface Module {
  /** Files of this repository it imports, relative to the root. */
  local: string[];
  /** Packages and node: builtins. */
  external: string[];
}

function readGraph(): Map<string, Module> {
  const graph = new Map<string, Module>();
  for (const pattern of ['src/**/*.{ts,tsx}', 'web/**/*.{ts,tsx}']) {
    for (const file of new Glob(pattern).scanSync({ cwd: ROOT })) {
      if (file.includes('node_modules')) continue;
      const text = readFileSync(join(ROOT, file), 'utf8');
      const module: Module = { local: [], external: [] };
      for (const match of text.matchAll(SPECIFIER)) {
        const specifier = (match[1] ?? match[2])!;
        if (!specifier.startsWith('.')) {
          module.external.push(specifier);
          continue;
        }
        const target = relative(ROOT, resolve(ROOT, dirname(file), specifier));
        if (existsSync(join(ROOT, target))) module.local.push(target);
      }
      graph.set(file, module);
    }
  }
  return graph;
}

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
function cycles(graph: Map<string, Module>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file)!.local) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)!.local.includes(file)) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

const graph = readGraph();
const isTest = (file: string) => /\.test\.tsx?$/.test(file) || file.includes('/fixtures/');
const layerOf = (file: string) => file.split('/').slice(0, 2).join('/');

/** Every import of a non-test file of `layer` that `allowed` refuses. */
function violations(layer: string, allowed: (target: string) => boolean, externals: (name: string) => boolean = () => true) {
  const refused: string[] = [];
  for (const [file, module] of graph) {
    if (!file.startsWith(`${layer}/`) || isTest(file)) continue;
    for (const target of module.local) if (!allowed(target)) refused.push(`${file} -> ${target}`);
    for (const name of module.external) if (!externals(name)) refused.push(`${file} -> ${name}`);
  }
  return refused;
}

describe('the import graph', () => {
  test('reads src/ and web/', () => {
    expect(graph.size).toBeGreaterThan(300);
    expect(graph.get('src/app.ts')?.local).toContain('src/deps.ts');
  });

  test('has no cycle, type imports included', () => {
    expect(cycles(graph)).toEqual([]);
  });

  test('contract imports valibot and itself only', () => {
    expect(violations('src/contract', (target) => target.startsWith('src/contract/'), (name) => name === 'valibot')).toEqual([]);
  });

  test('compose, crypto, auth and fabric import no application layer', () => {
    // Each other, the contract and lib (errors, ids, clock, logger); auth also the config's types.
    const PURE = ['src/compose', 'src/crypto', 'src/auth', 'src/fabric', 'src/contract', 'src/lib'];
    const pure = (layer: string) => (target: string) => PURE.includes(layerOf(target)) || (layer === 'src/auth' && target === 'src/config.ts');
    for (const layer of ['src/compose', 'src/crypto', 'src/auth', 'src/fabric']) {
      expect({ layer, refused: violations(layer, pure(layer)) }).toEqual({ layer, refused: [] });
    }
  });

  test('domain reaches neither the transport nor the hub', () => {
    const refusedLayers = ['src/http', 'src/daemon', 'src/app.ts', 'src/server.ts', 'src/deps.ts'];
    expect(violations('src/domain', (target) => !refusedLayers.some((layer) => target === layer || target.startsWith(`${layer}/`)))).toEqual([]);
  });

  test('the console imports from src/ only the contract and the browser-safe Compose modules', () => {
    const browserSafe = (target: string) => !target.startsWith('src/') || layerOf(target) === 'src/contract' || ['src/compose/document.ts', 'src/compose/merge.ts'].includes(target);
    expect(violations('web/src', browserSafe)).toEqual([]);
  });

  test('a cycle would be found', () => {
    const looped = new Map<string, Module>([
      ['a.ts', { local: ['b.ts'], external: [] }],
      ['b.ts', { local: ['a.ts'], external: [] }],
      ['c.ts', { local: ['a.ts'], external: [] }],
    ]);
    expect(cycles(looped)).toEqual([['a.ts', 'b.ts']]);
  });
});
