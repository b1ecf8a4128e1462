/**
 * Envelope throughput, measured against raw AES-256-GCM in the same run:
 *   bun scripts/bench/secrets.ts
 *
 * 1. pnsecret seal+open and pndaemon seal+open, operations per second, each with its ratio to
 *    a raw AES-256-GCM seal+open of the same plaintext (fresh nonce, no envelope).
 * 2. Resealing 100,000 stored pnsecret values from an old key to a new one in memory (what
 *    POST /api/admin/v1/secrets/reencrypt does, minus the database), against raw AES-GCM doing
 *    the same work (open under one key, seal under another). Target: under 30 s.
 *
 * Nothing is asserted; it prints. Tests never time (ARCHITECTURE.md §7).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb, openDatabase } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { MIGRATIONS } from '../../src/db/migrations.ts';
import { organization, variable } from '../../src/db/schema/index.ts';
import { reencryptAll } from '../../src/domain/secrets/reencrypt.ts';
import { newId } from '../../src/lib/ids.ts';
import { generateDaemonKeyPair, openAsDaemon, sealForDaemon } from '../../src/crypto/daemon.ts';
import { generateKeyRingText, parseKeyRing } from '../../src/crypto/keyring.ts';
import { openSecret, resealSecret, sealSecret, type SecretOwner } from '../../src/crypto/secret.ts';

const PLAINTEXT = 'postgres://app:correct-horse-battery-staple@db.internal:5432/app?sslmode=require&pool=10';
const RESEAL_COUNT = 100_000;
const RESEAL_TARGET_SECONDS = 30;

/** One raw AES-256-GCM seal: nonce || ciphertext || tag, the same layout the envelopes use. */
function rawSeal(key: Buffer, plaintext: Buffer): Buffer {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([nonce, ciphertext, cipher.getAuthTag()]);
}

function rawOpen(key: Buffer, sealed: Buffer): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  return Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()]);
}

/** Seconds to run `operation` `count` times, after a short warm-up. */
function time(count: number, operation: (index: number) => void): number {
  for (let i = 0; i < Math.min(1_000, count); i++) operation(i);
  const start = Bun.nanoseconds();
  for (let i = 0; i < count; i++) operation(i);
  return (Bun.nanoseconds() - start) / 1e9;
}

const label = (name: string) => name.padEnd(28);
const format = (value: number, digits = 0) =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

function throughput(name: string, count: number, operation: () => void, rawOpsPerSecond: number): void {
  const opsPerSecond = count / time(count, operation);
  const slowdown = rawOpsPerSecond / opsPerSecond;
  console.log(`${label(name)} ${format(opsPerSecond).padStart(10)} ops/s   ${format(slowdown, 1)}x the time of raw`);
}

const plaintextBytes = Buffer.from(PLAINTEXT);
const rawKey = randomBytes(32);
const ring = parseKeyRing(generateKeyRingText());
const owner: SecretOwner = { table: 'variable', column: 'value', id: '01940000-0000-7000-8000-000000000001' };
const daemonKeys = generateDaemonKeyPair();
const daemon = { serverId: '01940000-0000-7000-8000-00000000a001', daemonKeyId: 'dk1', ...daemonKeys };

console.log(`Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores; plaintext ${plaintextBytes.length} bytes\n`);
console.log('seal+open round trips');
const RAW_COUNT = 200_000;
const rawOpsPerSecond = RAW_COUNT / time(RAW_COUNT, () => rawOpen(rawKey, rawSeal(rawKey, plaintextBytes)));
console.log(`${label('raw AES-256-GCM')} ${format(rawOpsPerSecond).padStart(10)} ops/s`);
throughput('pnsecret', 100_000, () => openSecret(ring, sealSecret(ring, PLAINTEXT, owner), owner), rawOpsPerSecond);
const daemonRoundTrip = () => openAsDaemon(daemon, sealForDaemon(daemon, PLAINTEXT));
throughput('pndaemon (X25519 + HKDF)', 10_000, daemonRoundTrip, rawOpsPerSecond);

console.log(`\nreseal ${format(RESEAL_COUNT)} stored values from an old key to a new key`);
const oldEntry = generateKeyRingText();
const oldRing = parseKeyRing(oldEntry);
const rotatedRing = parseKeyRing(`${generateKeyRingText()},${oldEntry}`);
const rowOwners = Array.from({ length: RESEAL_COUNT }, (_, i): SecretOwner => ({ ...owner, id: `row-${i}` }));
const stored = rowOwners.map((rowOwner, i) => sealSecret(oldRing, `${PLAINTEXT}#${i}`, rowOwner));

const resealed: boolean[] = [];
const resealSeconds = time(RESEAL_COUNT, (i) => {
  resealed[i] = resealSecret(rotatedRing, stored[i] as string, rowOwners[i] as SecretOwner).resealed;
});
const resealedCount = resealed.filter(Boolean).length;

const oldRawKey = randomBytes(32);
const newRawKey = randomBytes(32);
const rawStored = stored.map((_, i) => rawSeal(oldRawKey, Buffer.from(`${PLAINTEXT}#${i}`)));
const rawResealSeconds = time(RESEAL_COUNT, (i) => rawSeal(newRawKey, rawOpen(oldRawKey, rawStored[i] as Buffer)));

const verdict = `${resealSeconds < RESEAL_TARGET_SECONDS ? 'under' : 'OVER'} the ${RESEAL_TARGET_SECONDS} s target`;
const seconds = (value: number) => `${format(value, 2).padStart(10)} s `;
console.log(`${label('pnsecret reseal')} ${seconds(resealSeconds)}    ${verdict}; ${format(resealedCount)} resealed`);
const resealRatio = format(resealSeconds / rawResealSeconds, 1);
console.log(`${label('raw AES-256-GCM open+seal')} ${seconds(rawResealSeconds)}    pnsecret takes ${resealRatio}x`);

// The real job: 100,000 secret variables stored in SQLite, re-encrypted by the same code the
// admin endpoint runs (batches of 500, one transaction each).
console.log(`\nre-encrypt ${format(RESEAL_COUNT)} stored secrets in SQLite (reencryptAll)`);

const dbDir = mkdtempSync(join(tmpdir(), 'panel-bench-secrets-'));
const sqlite = openDatabase(join(dbDir, 'bench.db'));
migrate(sqlite, MIGRATIONS);
const db = createDb(sqlite);
const organizationId = db.insert(organization).values({ name: 'Bench' }).returning().get().id;
db.transaction((tx) => {
  for (let i = 0; i < RESEAL_COUNT; i++) {
    const id = newId();
    tx.insert(variable)
      .values({ id, organizationId, key: `SECRET_${i}`, isSecret: true, value: sealSecret(oldRing, `${PLAINTEXT}#${i}`, { table: 'variable', column: 'value', id }) })
      .run();
  }
});
const dbStarted = performance.now();
const report = reencryptAll(db, rotatedRing);
const dbSeconds = (performance.now() - dbStarted) / 1000;
const dbVerdict = `${dbSeconds < RESEAL_TARGET_SECONDS ? 'under' : 'OVER'} the ${RESEAL_TARGET_SECONDS} s target`;
console.log(`${label('reencryptAll (SQLite, WAL)')} ${seconds(dbSeconds)}    ${dbVerdict}; ${format(report.resealed)} resealed`);
console.log(`${label('ratio to raw AES-256-GCM')} ${format(dbSeconds / rawResealSeconds, 1).padStart(10)}x`);
sqlite.close();
rmSync(dbDir, { recursive: true, force: true });
