/**
 * Answers Elysia does not check as they leave (src/http/present.ts, describedAnswer): every
 * resource read and list of the client route table is asked for with a seeded organization's
 * ids and must answer 200, so the harness (test/api-description.ts) checks each such answer
 * against its valibot schema, refusing one the schema would change. Generated from the route
 * table, so a resource added later is covered without editing this file.
 */
import { describe, expect, test } from 'bun:test';
import * as v from 'valibot';
import { Elysia } from 'elysia';
import { buildOpenApiDocument } from '../src/http/openapi.ts';
import { answerSchemaOf, describedAnswer } from '../src/http/present.ts';
import { loadEveryRouteGroup } from '../src/http/route-groups.ts';
import { createTestApp } from './harness.ts';
import { buildRequest, party, PREFIX, shapeOf, slotSets } from './route-table.ts';

type Declared = { response?: Record<string, v.GenericSchema> };
const isDescribedOnly = (schema: v.GenericSchema | undefined) => schema !== undefined && answerSchemaOf(schema) !== schema;

function world() {
  const t = createTestApp();
  return { t, a: party(t) };
}

const discovery = world();
// The table as the API description has it: every lazily registered route group loaded.
await loadEveryRouteGroup(discovery.t.app);
const reads = discovery.t.app.routes
  .filter((route) => route.method === 'GET' && route.path.startsWith(`${PREFIX}/`) && isDescribedOnly((route.hooks as Declared).response?.[200]))
  .map((route) => shapeOf(route, discovery.a.ids));

describe('answers not checked as they leave', () => {
  test('the resource reads and lists are among them', () => {
    const paths = reads.map((shape) => shape.path);
    expect(paths).toContain(`${PREFIX}/projects/:id`);
    expect(paths).toContain(`${PREFIX}/services/`);
    expect(reads.length).toBeGreaterThan(30);
  });

  for (const shape of reads) {
    test(`GET ${shape.path.slice(PREFIX.length)} answers what its schema admits unchanged`, async () => {
      const { t, a } = world();
      const [slots = []] = slotSets(shape);
      const { path } = buildRequest(shape, new Map(slots.map((slot) => [slot, a.ids.get(slot.kind)!])));
      const res = await t.request('GET', path, undefined, a.bearer);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
    });
  }

  test('an answer its schema would change fails the harness, though Elysia lets it out', async () => {
    const t = createTestApp();
    const answer = v.object({ name: v.string() });
    t.app.get('/api/client/v1/probe-answer', () => ({ name: 'a', secret: 'kept' }), { response: { 200: describedAnswer(answer) } });
    const raw = await t.app.handle(new Request('http://localhost/api/client/v1/probe-answer'));
    expect(await raw.json()).toEqual({ name: 'a', secret: 'kept' });
    expect(t.request('GET', '/api/client/v1/probe-answer')).rejects.toThrow(/would change/);
  });

  test('an answer its schema refuses fails the harness', async () => {
    const t = createTestApp();
    t.app.get('/api/client/v1/probe-answer', () => ({ name: 7 }), { response: { 200: describedAnswer(v.object({ name: v.pipe(v.number(), v.maxValue(5)) })) } });
    expect(t.request('GET', '/api/client/v1/probe-answer')).rejects.toThrow(/refuses/);
  });

  test('the API description shows a described-only answer as its schema', () => {
    const schema = v.object({ id: v.string(), count: v.nullable(v.number()) });
    const described = (answer: v.GenericSchema) =>
      buildOpenApiDocument(new Elysia().get('/x', () => ({ id: 'a', count: null }), { response: { 200: answer } }), { publicUrl: 'http://localhost' }).paths['/x'];
    expect(described(describedAnswer(schema))).toEqual(described(schema));
    expect(JSON.stringify(described(schema))).toContain('"count"');
  });
});
