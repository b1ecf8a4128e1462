import { describe, expect, test } from 'bun:test';
import { changedEntries, isUnchanged, sameValue, withEntries } from './changes.ts';

describe('what an edit form sends', () => {
  const stored = { name: 'web', description: null, port: 8080, options: { hostnames: ['a.test'], bind: 'public' } };

  test('only the fields that differ from the stored ones', () => {
    expect(changedEntries({ name: 'web', description: 'front door', port: 8080 }, stored)).toEqual({ description: 'front door' });
    expect(changedEntries({ name: 'api', description: null, port: 8081 }, stored)).toEqual({ name: 'api', port: 8081 });
  });

  test('nothing when nothing changed, and an undefined field is left alone', () => {
    const same = changedEntries({ name: 'web', description: undefined, options: { bind: 'public', hostnames: ['a.test'] } }, stored);
    expect(same).toEqual({});
    expect(isUnchanged(same)).toBe(true);
  });

  test('clearing a value is a change (null), and objects and lists compare by content', () => {
    expect(changedEntries({ description: null, name: null }, stored)).toEqual({ name: null });
    expect(changedEntries({ options: { hostnames: ['a.test', 'b.test'], bind: 'public' } }, stored)).toEqual({ options: { hostnames: ['a.test', 'b.test'], bind: 'public' } });
    expect(sameValue(['a', 'b'], ['b', 'a'])).toBe(false);
    expect(sameValue({ a: 1, b: { c: 2, d: 3 } }, { b: { d: 3, c: 2 }, a: 1 })).toBe(true);
    expect(sameValue(null, undefined)).toBe(false);
  });
});

describe('an object the API replaces whole', () => {
  test('keeps the keys the form does not show and applies the ones it does', () => {
    const stored = { hostnames: ['a.test'], bind: 'public', protocol: 'http', pathPrefix: '/api' };
    expect(withEntries(stored, { hostnames: ['b.test'], pathPrefix: undefined })).toEqual({ hostnames: ['b.test'], bind: 'public', protocol: 'http' });
    expect(stored.pathPrefix).toBe('/api');
  });

  test('starts from nothing and answers null when nothing is left', () => {
    expect(withEntries(null, { shell: '/bin/sh' })).toEqual({ shell: '/bin/sh' });
    expect(withEntries({ uid: 1500 }, { uid: undefined })).toBeNull();
  });
});
