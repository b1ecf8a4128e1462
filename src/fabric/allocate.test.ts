import { describe, expect, test } from 'bun:test';
import { DomainError } from '../lib/errors.ts';
import { allocateMembers, assignHosts, bridgeName, type MemberAllocation, rangeProblem, rangesOverlap, SubnetPool, subnetIndex } from './allocate.ts';

const members = (allocations: MemberAllocation[]) => allocations.map(({ serverId, meshAddress, listenPort }) => `${serverId} ${meshAddress}:${listenPort}`);

describe('mesh addresses and listen ports', () => {
  test('the lowest free address and port, one each, never the network address', () => {
    expect(members(allocateMembers('10.209.0.0/16', 51820, [], ['a', 'b', 'c']))).toEqual(['a 10.209.0.1:51820', 'b 10.209.0.2:51821', 'c 10.209.0.3:51822']);
  });

  test('existing members keep theirs; a freed address and port are reused first', () => {
    const existing = allocateMembers('10.209.0.0/16', 51820, [], ['a', 'b', 'c']);
    const withoutB = existing.filter((member) => member.serverId !== 'b');
    expect(members(allocateMembers('10.209.0.0/16', 51820, withoutB, ['d', 'e']))).toEqual(['d 10.209.0.2:51821', 'e 10.209.0.4:51823']);
  });

  test('no collision over many joins and leaves', () => {
    let current: MemberAllocation[] = [];
    for (let round = 0; round < 50; round++) {
      current = current.filter((_, i) => (i + round) % 3 !== 0);
      current = [...current, ...allocateMembers('10.209.0.0/16', 51820, current, [`r${round}a`, `r${round}b`])];
      expect(new Set(current.map((member) => member.meshAddress)).size).toBe(current.length);
      expect(new Set(current.map((member) => member.listenPort)).size).toBe(current.length);
    }
  });

  test('a full range is 409 fabric_range_exhausted naming the setting; the broadcast address is never given', () => {
    const full = allocateMembers('10.209.0.0/24', 51820, [], Array.from({ length: 254 }, (_, i) => `s${i}`));
    expect(full.at(-1)!.meshAddress).toBe('10.209.0.254');
    const error = (() => {
      try {
        allocateMembers('10.209.0.0/24', 51820, full, ['one-more']);
      } catch (caught) {
        return caught as DomainError;
      }
    })();
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ code: 'fabric_range_exhausted', status: 409, path: 'fabricMeshRange' });
  });
});

describe('container subnets', () => {
  test('lowest free /24 of the range; taken ones skipped; a freed one reused', () => {
    const pool = new SubnetPool('10.210.0.0/16', ['10.210.0.0/24', '10.210.2.0/24']);
    expect([pool.take(), pool.take(), pool.take()]).toEqual(['10.210.1.0/24', '10.210.3.0/24', '10.210.4.0/24']);
    expect(new SubnetPool('10.210.0.0/16', ['10.210.1.0/24']).take()).toBe('10.210.0.0/24');
  });

  test('subnets outside the range are not counted; a full range is 409', () => {
    const pool = new SubnetPool('10.210.0.0/22', ['10.99.0.0/24', '10.210.1.0/24']);
    expect([pool.take(), pool.take(), pool.take()]).toEqual(['10.210.0.0/24', '10.210.2.0/24', '10.210.3.0/24']);
    expect(() => pool.take()).toThrow(expect.objectContaining({ code: 'fabric_range_exhausted', path: 'fabricContainerRange' }));
  });

  test('a subnet names its bridge by its index in the range, at most 15 characters for a /8', () => {
    expect(bridgeName(subnetIndex('10.210.0.0/16', '10.210.7.0/24')!)).toBe('pnf7');
    expect(bridgeName(subnetIndex('10.0.0.0/8', '10.255.255.0/24')!)).toBe('pnf65535');
    expect(subnetIndex('10.210.0.0/16', '10.211.0.0/24')).toBeNull();
    expect(subnetIndex('10.210.0.0/16', '10.210.0.0/25')).toBeNull();
  });
});

describe('container addresses', () => {
  test('from .2 up in order; previous ones kept; removed ones freed for the next', () => {
    const first = assignHosts('10.210.3.0/24', {}, ['web#1', 'web#2', 'db#1']);
    expect(first).toEqual({ 'web#1': 2, 'web#2': 3, 'db#1': 4 });
    // web#1 leaves, cache#1 arrives: web#2 and db#1 keep their addresses, cache#1 gets the freed .2
    expect(assignHosts('10.210.3.0/24', first, ['cache#1', 'web#2', 'db#1'])).toEqual({ 'cache#1': 2, 'web#2': 3, 'db#1': 4 });
  });

  test('a /24 holds 253 containers; the 254th is 409', () => {
    const keys = Array.from({ length: 253 }, (_, i) => `s#${i}`);
    expect(Object.values(assignHosts('10.210.3.0/24', {}, keys)).at(-1)).toBe(254);
    expect(() => assignHosts('10.210.3.0/24', {}, [...keys, 'one#1'])).toThrow(expect.objectContaining({ code: 'fabric_range_exhausted' }));
  });
});

describe('range settings', () => {
  test('defaults are valid and apart', () => {
    expect(rangeProblem('10.209.0.0/16', 'mesh')).toBeNull();
    expect(rangeProblem('10.210.0.0/16', 'container')).toBeNull();
    expect(rangesOverlap('10.209.0.0/16', '10.210.0.0/16')).toBe(false);
    expect(rangesOverlap('10.0.0.0/8', '10.210.0.0/16')).toBe(true);
  });

  test.each([
    ['10.209.0.1/16', 'host bits zero'],
    ['10.209.0.0', 'host bits zero'],
    ['10.0.0.0/7', '/8 to a /24'],
    ['10.209.0.0/25', '/8 to a /24'],
    ['8.8.0.0/16', 'private range'],
    ['100.64.0.0/16', 'private range'],
    ['172.17.0.0/16', 'Docker'],
    ['172.16.0.0/12', 'Docker'],
    ['192.168.10.0/24', 'Docker'],
  ])('mesh range %s is refused (%s)', (text, reason) => {
    expect(rangeProblem(text, 'mesh')).toContain(reason);
  });

  test('a container range holds at least four subnets', () => {
    expect(rangeProblem('10.210.0.0/22', 'container')).toBeNull();
    expect(rangeProblem('10.210.0.0/23', 'container')).toContain('/8 to a /22');
    expect(rangeProblem('172.16.0.0/16', 'container')).toBeNull();
  });
});
