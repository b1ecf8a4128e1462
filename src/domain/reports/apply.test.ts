/**
 * The specification's container state table, row by row, through applyReport; matching by
 * platform labels or name; container ids unique per server; and isolation between environments.
 */
import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { PANEL_LABELS } from '../../compose/naming.ts';
import { runtimeContainerStates } from '../../contract/enums.ts';
import type { ReportedContainer } from '../../contract/daemon-protocol.ts';
import { type Container, container, environment, server } from '../../db/schema/index.ts';
import { createTestApp, type TestApp } from '../../../test/harness.ts';
import { createOwner } from '../../../test/identity.ts';
import { seedService, seedTree } from '../../../test/seed.ts';
import { applyReport, isRemovedContainer, type ReportTarget } from './apply.ts';

function setup() {
  const t = createTestApp();
  const owner = createOwner(t);
  const tree = seedTree(t, owner.organizationId);
  const web = tree.serviceId;
  const worker = seedService(t, tree.environmentId);
  const preallocate = (serviceId: string, ordinal = 1) =>
    t.db
      .insert(container)
      .values({ serviceId, serverId: tree.serverId, containerName: `${serviceId}-${ordinal}`, composeServiceName: 'svc', ordinal, status: 'pending' })
      .returning()
      .get();
  const target = (kind: ReportTarget['kind']): ReportTarget => ({ serverId: tree.serverId, environmentId: tree.environmentId, kind });
  return { t, owner, tree, web, worker, preallocate, target };
}

const labelled = (row: Container, fields: Partial<ReportedContainer> = {}): ReportedContainer => ({
  containerId: `cid-${row.id}`,
  name: row.containerName,
  service: 'web',
  state: 'running',
  labels: { [PANEL_LABELS.serviceId]: row.serviceId, [PANEL_LABELS.role]: row.role, [PANEL_LABELS.ordinal]: String(row.ordinal) },
  ...fields,
});
const reread = (t: TestApp, id: string) => t.db.select().from(container).where(eq(container.id, id)).get()!;

describe('the container state table', () => {
  test('(row created) by pre-allocation is pending with no container id', () => {
    const { preallocate, web } = setup();
    expect(preallocate(web)).toMatchObject({ status: 'pending', containerId: null });
  });

  test.each([...runtimeContainerStates])('pending or any reported state -> %s: the runtime state and the reported id', (state) => {
    const { t, web, preallocate, target } = setup();
    const row = preallocate(web);
    const changed = applyReport(t.db, target('deploy'), [labelled(row, { state })]);
    expect(changed.map((item) => item.id)).toEqual([row.id]);
    expect(reread(t, row.id)).toMatchObject({ status: state, containerId: `cid-${row.id}`, composeServiceName: 'web' });
    // From a reported state to another one.
    applyReport(t.db, target(null), [labelled(row, { state: state === 'running' ? 'paused' : 'running' })]);
    expect(reread(t, row.id).status).toBe(state === 'running' ? 'paused' : 'running');
  });

  test('any -> unknown when the runtime state is not one of the list', () => {
    const { t, web, preallocate, target } = setup();
    const row = preallocate(web);
    applyReport(t.db, target('deploy'), [labelled(row, { state: 'unknown' })]);
    expect(reread(t, row.id)).toMatchObject({ status: 'unknown', containerId: `cid-${row.id}` });
  });

  test('any -> exited on a stop report: the stopped containers it lists keep their ids', () => {
    const { t, web, preallocate, target } = setup();
    const row = preallocate(web);
    applyReport(t.db, target('deploy'), [labelled(row, { state: 'running' })]);
    applyReport(t.db, target('stop'), [labelled(row, { state: 'exited' })]);
    expect(reread(t, row.id)).toMatchObject({ status: 'exited', containerId: `cid-${row.id}` });
    expect(isRemovedContainer(reread(t, row.id))).toBe(false);
  });

  test('a stop report taken while the stop runs shows each container as the runtime has it', () => {
    const { t, web, worker, preallocate, target } = setup();
    const a = preallocate(web);
    const b = preallocate(worker);
    applyReport(t.db, target('deploy'), [labelled(a), labelled(b)]);
    applyReport(t.db, target('stop'), [labelled(a, { state: 'exited' }), labelled(b, { state: 'running' })]);
    expect([reread(t, a.id).status, reread(t, b.id).status]).toEqual(['exited', 'running']);
  });

  test('an empty stop report clears container_id; the stopped containers read exited', () => {
    const { t, web, worker, preallocate, target } = setup();
    const a = preallocate(web);
    const b = preallocate(worker);
    applyReport(t.db, target('deploy'), [labelled(a), labelled(b, { state: 'restarting' })]);
    const changed = applyReport(t.db, target('stop'), []);
    expect(changed).toHaveLength(2);
    expect(reread(t, a.id)).toMatchObject({ status: 'exited', containerId: null });
    expect(reread(t, b.id)).toMatchObject({ status: 'exited', containerId: null });
  });

  test('an empty destroy report clears container_id and leaves the status unchanged', () => {
    const { t, web, worker, preallocate, target } = setup();
    const a = preallocate(web);
    const b = preallocate(worker);
    applyReport(t.db, target('deploy'), [labelled(a, { state: 'running' }), labelled(b, { state: 'dead' })]);
    applyReport(t.db, target('destroy'), []);
    expect(reread(t, a.id)).toMatchObject({ status: 'running', containerId: null });
    expect(reread(t, b.id)).toMatchObject({ status: 'dead', containerId: null });
    // The rows say their containers are gone, whatever status they last had.
    expect([a, b].map((row) => isRemovedContainer(reread(t, row.id)))).toEqual([true, true]);
    expect(isRemovedContainer(preallocate(web, 2))).toBe(false);
    // After a stop the status stays exited through the destroy.
    applyReport(t.db, target('stop'), []);
    applyReport(t.db, target('destroy'), []);
    expect(reread(t, a.id)).toMatchObject({ status: 'exited', containerId: null });
  });

  test('a deploy report leaves pending rows it does not list unchanged', () => {
    const { t, web, worker, preallocate, target } = setup();
    const a = preallocate(web);
    const b = preallocate(worker);
    applyReport(t.db, target('deploy'), [labelled(a)]);
    expect(reread(t, b.id)).toMatchObject({ status: 'pending', containerId: null });
  });

  test("a deploy report without a row's container: it is gone (a dropped replica Compose removed), exited with no id; other servers' rows untouched", () => {
    const { t, tree, web, preallocate, target } = setup();
    const kept = preallocate(web, 1);
    const dropped = preallocate(web, 2);
    applyReport(t.db, target('deploy'), [labelled(kept), labelled(dropped)]);
    const elsewhere = t.db.insert(server).values({ organizationId: tree.organizationId, name: 'elsewhere' }).returning().get();
    const remote = t.db
      .insert(container)
      .values({ serviceId: web, serverId: elsewhere.id, containerName: 'remote', composeServiceName: 'web', ordinal: 3, status: 'running', containerId: 'cid-remote' })
      .returning()
      .get();
    for (const kind of ['deploy', null] as const) {
      const changed = applyReport(t.db, target(kind), [labelled(kept)]);
      expect(reread(t, dropped.id)).toMatchObject({ status: 'exited', containerId: null });
      expect(changed.map((row) => row.id)).toEqual(kind === 'deploy' ? [kept.id, dropped.id] : [kept.id]);
    }
    expect(reread(t, kept.id)).toMatchObject({ status: 'running', containerId: `cid-${kept.id}` });
    expect(reread(t, remote.id)).toMatchObject({ status: 'running', containerId: 'cid-remote' });
  });
});

describe('a replica moved to another server', () => {
  test("the old server's reports still listing its container never take the row back", () => {
    const { t, tree, web, preallocate, target } = setup();
    const row = preallocate(web);
    applyReport(t.db, target('deploy'), [labelled(row)]);
    // A deploy moved the slot to another server: pre-allocated there, pending.
    const elsewhere = t.db.insert(server).values({ organizationId: tree.organizationId, name: 'elsewhere' }).returning().get();
    t.db.update(container).set({ serverId: elsewhere.id, status: 'pending', containerId: null }).where(eq(container.id, row.id)).run();
    // The old server, while Compose removes the orphan, still lists it (an interim report).
    expect(applyReport(t.db, target('deploy'), [labelled(row, { state: 'removing' })])).toEqual([]);
    expect(reread(t, row.id)).toMatchObject({ serverId: elsewhere.id, status: 'pending', containerId: null });
    // The new server reports it running.
    applyReport(t.db, { ...target('deploy'), serverId: elsewhere.id }, [labelled(row, { containerId: 'cid-new' })]);
    expect(reread(t, row.id)).toMatchObject({ serverId: elsewhere.id, status: 'running', containerId: 'cid-new' });
  });
});

describe('matching', () => {
  test('by container name when labels are missing; unknown containers are ignored', () => {
    const { t, web, preallocate, target } = setup();
    const row = preallocate(web);
    const changed = applyReport(t.db, target('deploy'), [
      { containerId: 'by-name', name: row.containerName, service: 'web', state: 'running' },
      { containerId: 'stranger', name: 'someone-else', service: 'x', state: 'running' },
    ]);
    expect(changed.map((item) => item.id)).toEqual([row.id]);
    expect(reread(t, row.id).containerId).toBe('by-name');
    expect(t.db.select().from(container).all()).toHaveLength(1);
  });

  test("a labelled container of this environment's service without a row gets one", () => {
    const { t, web, target } = setup();
    const [created] = applyReport(t.db, target('deploy'), [
      {
        containerId: 'new-one',
        name: 'web-2',
        service: 'web-2',
        state: 'running',
        labels: { [PANEL_LABELS.serviceId]: web, [PANEL_LABELS.role]: 'service', [PANEL_LABELS.ordinal]: '2' },
      },
    ]);
    expect(created).toMatchObject({ serviceId: web, ordinal: 2, role: 'service', containerId: 'new-one', status: 'running', composeServiceName: 'web-2' });
  });

  test("labels naming another environment's service never touch it", () => {
    const { t, owner, target } = setup();
    const other = seedTree(t, owner.organizationId);
    const foreign = t.db
      .insert(container)
      .values({ serviceId: other.serviceId, serverId: other.serverId, containerName: 'foreign-1', composeServiceName: 'web' })
      .returning()
      .get();
    const changed = applyReport(t.db, target('deploy'), [labelled(foreign, { name: 'unrelated' })]);
    expect(changed).toEqual([]);
    expect(reread(t, foreign.id)).toMatchObject({ status: 'pending', containerId: null });
  });

  test('a container id is unique per server: the row taking it clears it from a stale row', () => {
    const { t, web, worker, preallocate, target } = setup();
    const a = preallocate(web);
    const b = preallocate(worker);
    applyReport(t.db, target('deploy'), [labelled(a, { containerId: 'same' })]);
    applyReport(t.db, target('deploy'), [labelled(b, { containerId: 'same' })]);
    expect(reread(t, a.id).containerId).toBeNull();
    expect(reread(t, b.id).containerId).toBe('same');
  });

  test('an environment without services changes nothing', () => {
    const { t, tree } = setup();
    const empty = t.db.insert(environment).values({ projectId: tree.projectId, name: 'empty' }).returning().get();
    expect(applyReport(t.db, { serverId: tree.serverId, environmentId: empty.id, kind: 'stop' }, [])).toEqual([]);
  });
});
