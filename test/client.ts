/**
 * Small helpers for client API tests: a request function bound to one caller, a pager that
 * walks a list route page by page, and a raw backdate so a later write visibly moves updated_at.
 */
import { expect } from 'bun:test';
import type { TestApp } from './harness.ts';

export const CLIENT_V1 = '/api/client/v1';

export type ClientRequest = (method: string, path: string, body?: unknown) => ReturnType<TestApp['request']>;

/** Requests under /api/client/v1 as `caller` (no caller: no credentials). */
export function clientAs(t: TestApp, caller?: { headers: Record<string, string> }): ClientRequest {
  return (method, path, body) => t.request(method, `${CLIENT_V1}${path}`, body, caller?.headers ?? {});
}

/**
 * Walks `path` (which already carries its filter) with `limit` per page and answers every id
 * seen, checking each page is full but the last and the last has no next cursor.
 */
export async function collectPages(request: ClientRequest, path: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  const separator = path.includes('?') ? '&' : '?';
  do {
    const res = await request('GET', `${path}${separator}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    const page = res.json as { data: { id: string }[]; nextCursor: string | null };
    if (page.nextCursor !== null) expect(page.data).toHaveLength(limit);
    ids.push(...page.data.map((row) => row.id));
    cursor = page.nextCursor;
  } while (cursor !== null);
  return ids;
}

/** Sets a row's updated_at to the epoch with raw SQL (bypassing the touch trigger). */
export function backdate(t: TestApp, table: string, id: string): void {
  t.sqlite.prepare(`UPDATE "${table}" SET updated_at = 0 WHERE id = ?`).run(id);
}

/** A row read with raw SQL, to check what a refused request left behind. */
export function rawRow(t: TestApp, table: string, id: string): Record<string, unknown> | null {
  return t.sqlite.query<Record<string, unknown>, [string]>(`SELECT * FROM "${table}" WHERE id = ?`).get(id);
}

export const repeat = (length: number, character = 'a') => character.repeat(length);
