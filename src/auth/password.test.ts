import { describe, expect, test } from 'bun:test';
import { hash as nodeRsHash, verify as nodeRsVerify } from '@node-rs/argon2';
import { hashPassword, needsRehash, parsePhc, passwordProblem, verifyPassword } from './password.ts';

describe('Argon2id password hashes', () => {
  test('use m=19456, t=2, p=1 in a standard PHC string, and verify', async () => {
    const hash = await hashPassword('correct horse battery staple');
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
    expect(parsePhc(hash)).toEqual({ algorithm: 'argon2id', version: 19, memoryKib: 19456, iterations: 2, parallelism: 1 });
    expect(await verifyPassword('correct horse battery staple', hash)).toBe(true);
    expect(await verifyPassword('correct horse battery stapler', hash)).toBe(false);
    expect(needsRehash(hash)).toBe(false);
  });

  test('our hashes verify with @node-rs/argon2, and its hashes verify with ours', async () => {
    const ours = await hashPassword('pässwörd with ünïcode ✓');
    expect(await nodeRsVerify(ours, 'pässwörd with ünïcode ✓')).toBe(true);
    expect(await nodeRsVerify(ours, 'passwörd with ünïcode ✓')).toBe(false);
    // Algorithm 2 is Argon2id in @node-rs/argon2.
    const theirs = await nodeRsHash('another long passphrase', { algorithm: 2, memoryCost: 19456, timeCost: 2, parallelism: 1 });
    expect(theirs).toStartWith('$argon2id$v=19$m=19456,t=2,p=1$');
    expect(await verifyPassword('another long passphrase', theirs)).toBe(true);
    expect(await verifyPassword('another long passphrasE', theirs)).toBe(false);
    expect(needsRehash(theirs)).toBe(false);
  });

  test('weaker parameters or other algorithms need a rehash; garbage never verifies', async () => {
    expect(needsRehash(await nodeRsHash('x', { algorithm: 2, memoryCost: 4096, timeCost: 3, parallelism: 1 }))).toBe(true);
    expect(needsRehash(await nodeRsHash('x', { algorithm: 2, memoryCost: 19456, timeCost: 1, parallelism: 1 }))).toBe(true);
    expect(needsRehash(await nodeRsHash('x', { algorithm: 1, memoryCost: 19456, timeCost: 2, parallelism: 1 }))).toBe(true);
    expect(needsRehash(await Bun.password.hash('x', { algorithm: 'bcrypt', cost: 4 }))).toBe(true);
    expect(needsRehash(await nodeRsHash('x', { algorithm: 2, memoryCost: 65536, timeCost: 3, parallelism: 1 }))).toBe(false);
    expect(needsRehash('not a hash')).toBe(true);
    expect(await verifyPassword('x', 'not a hash')).toBe(false);
  });
});

describe('password policy', () => {
  test('at least 12 characters (code points), at most 1024, never the e-mail', () => {
    expect(passwordProblem('elevenchars', 'a@example.test')).toContain('at least 12');
    expect(passwordProblem('twelve chars', 'a@example.test')).toBeNull();
    expect(passwordProblem('🔑'.repeat(11), 'a@example.test')).toContain('at least 12');
    expect(passwordProblem('x'.repeat(1025), 'a@example.test')).toContain('at most 1024');
    expect(passwordProblem('Alice.Smith@Example.test', 'alice.smith@example.test')).toContain('e-mail');
    expect(passwordProblem('alice.smith1', 'alice.smith1@example.test')).toContain('e-mail');
  });
});
