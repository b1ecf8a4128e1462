/**
 * Paging retained history: chunks of several containers overlap in time, and every page merges
 * them so that walking all pages (either way, at any page size, with or without the scan bound)
 * yields every matching line exactly once, in time order.
 */
import { describe, expect, test } from 'bun:test';
import { createTestApp } from '../../../test/harness.ts';
import { createOwner } from '../../../test/identity.ts';
import { seedService, seedTree } from '../../../test/seed.ts';
import type { StoredLine } from './lines.ts';
import { type LogCursor, type LogFilter, pageBackward, pageForward } from './query.ts';
import { insertChunk } from './store.ts';

function world() {
  const t = createTestApp();
  const owner = createOwner(t);
  const tree = seedTree(t, owner.organizationId);
  const other = seedService(t, tree.environmentId);
  // Two containers of one service and one of another, writing interleaved chunks.
  let seed = 7;
  const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  const all: { at: number; text: string; serviceId: string; ordinal: number }[] = [];
  for (let chunk = 0; chunk < 60; chunk++) {
    const ordinal = (chunk % 3) + 1;
    const serviceId = ordinal === 3 ? other : tree.serviceId;
    const base = chunk * 700 + Math.floor(random() * 2_000);
    const lines: StoredLine[] = Array.from({ length: 1 + Math.floor(random() * 9) }, (_, i) => {
      const at = base + i * Math.floor(random() * 300);
      const text = `c${chunk} l${i} ${random() < 0.2 ? 'ERROR boom' : 'ok'}`;
      all.push({ at, text, serviceId, ordinal });
      return [at, random() < 0.3 ? 1 : 0, text];
    });
    lines.sort((a, b) => a[0] - b[0]);
    insertChunk(t.db, { organizationId: owner.organizationId, serviceId, containerId: null, ordinal, containerName: `web-${ordinal}`, lines });
  }
  return { t, organizationId: owner.organizationId, serviceIds: [tree.serviceId, other], firstService: tree.serviceId, all };
}

function walk(direction: 'backward' | 'forward', run: (cursor?: LogCursor) => { lines: { at: number; text: string }[]; nextCursor: LogCursor | null }) {
  const pages: { at: number; text: string }[][] = [];
  let cursor: LogCursor | undefined;
  for (let guard = 0; guard < 10_000; guard++) {
    const page = run(cursor);
    pages.push(page.lines);
    if (!page.nextCursor) break;
    cursor = page.nextCursor;
  }
  const ordered = direction === 'backward' ? pages.reverse().flat() : pages.flat();
  return ordered.map((line) => line.text);
}

const sortedTexts = (lines: { at: number; text: string }[]) => [...lines].sort((a, b) => a.at - b.at).map((line) => line.text);

describe('paging retained history', () => {
  test.each([1, 7, 50, 1000])('walking backward or forward in pages of %i yields every line once, in time order', (size) => {
    const { t, serviceIds, all } = world();
    const filter: LogFilter = { serviceIds };
    const backward = walk('backward', (cursor) => pageBackward(t.db, filter, size, cursor));
    const forward = walk('forward', (cursor) => pageForward(t.db, filter, size, cursor));
    expect(backward).toHaveLength(all.length);
    expect(new Set(backward).size).toBe(all.length);
    expect(forward).toEqual(backward);
    const times = new Map(all.map((line) => [line.text, line.at]));
    const at = backward.map((text) => times.get(text)!);
    expect(at).toEqual([...at].sort((a, b) => a - b));
  });

  test('a tiny scan bound only makes pages shorter: the walk still yields every line once', () => {
    const { t, serviceIds, all } = world();
    const backward = walk('backward', (cursor) => pageBackward(t.db, { serviceIds }, 20, cursor, 1));
    const forward = walk('forward', (cursor) => pageForward(t.db, { serviceIds }, 20, cursor, 1));
    expect(new Set(backward).size).toBe(all.length);
    expect(backward).toHaveLength(all.length);
    expect(forward).toEqual(backward);
  });

  test('filters: one service, a text (case-insensitive), a time range', () => {
    const { t, serviceIds, firstService, all } = world();
    const one = pageBackward(t.db, { serviceIds: [firstService] }, 10_000).lines;
    expect(one.map((line) => line.text).sort()).toEqual(all.filter((line) => line.serviceId === firstService).map((line) => line.text).sort());
    const errors = pageBackward(t.db, { serviceIds, text: 'error BOOM' }, 10_000).lines;
    expect(errors.map((line) => line.text)).toEqual(sortedTexts(all.filter((line) => line.text.includes('ERROR boom'))));
    const since = 10_000;
    const until = 20_000;
    const ranged = pageBackward(t.db, { serviceIds, since, until }, 10_000).lines;
    expect(ranged.map((line) => line.text).sort()).toEqual(all.filter((line) => line.at >= since && line.at <= until).map((line) => line.text).sort());
  });

  test('a stream filter keeps Panel markers (they say where lines are missing)', () => {
    const { t, organizationId, firstService } = world();
    insertChunk(t.db, {
      organizationId,
      serviceId: firstService,
      containerId: null,
      ordinal: 1,
      containerName: 'web-1',
      lines: [
        [1_000_000, 2, 'marker'],
        [1_000_001, 1, 'an error'],
        [1_000_002, 0, 'an out'],
      ],
    });
    const errors = pageBackward(t.db, { serviceIds: [firstService], stream: 'stderr', since: 1_000_000 }, 10).lines;
    expect(errors.map((line) => line.text)).toEqual(['marker', 'an error']);
  });
});
