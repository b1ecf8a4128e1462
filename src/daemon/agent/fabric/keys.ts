/**
 * The daemon's WireGuard key pair: made on the server the first time the daemon runs, kept in
 * <stateDir>/fabric/private.key (0600, the base64 line `wg` reads), never sent anywhere. Only
 * the public key is reported to the control plane. WireGuard keys are Curve25519, the same
 * curve as node:crypto's X25519, so no `wg genkey` is needed to make one. A `rotate-key`
 * command (or a start without the file) makes a new pair.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writePrivateFile } from '../identity.ts';

export const PRIVATE_KEY_FILE = 'private.key';

export interface WireguardKeys {
  /** Path of the private key file (`wg` reads the key from it). */
  privateKeyFile: string;
  privateKey: string;
  publicKey: string;
}

/** PKCS#8 DER of an X25519 private key, up to its 32 raw bytes (RFC 8410). */
const X25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');

const fromBase64Url = (text: string) => Buffer.from(text, 'base64url').toString('base64');

/** The public key of a base64 WireGuard private key. */
export function publicKeyOf(privateKey: string): string {
  const raw = Buffer.from(privateKey, 'base64');
  if (raw.length !== 32) throw new Error('a WireGuard private key is 32 bytes');
  const key = createPrivateKey({ key: Buffer.concat([X25519_PKCS8_PREFIX, raw]), format: 'der', type: 'pkcs8' });
  return fromBase64Url(createPublicKey(key).export({ format: 'jwk' }).x!);
}

function generate(): { privateKey: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('x25519');
  return { privateKey: fromBase64Url(privateKey.export({ format: 'jwk' }).d!), publicKey: fromBase64Url(publicKey.export({ format: 'jwk' }).x!) };
}

/** A new key pair in `dir`, written 0600 over the old one (atomically: a crash leaves one or the other). */
export async function createWireguardKeys(dir: string): Promise<WireguardKeys> {
  const keys = generate();
  const privateKeyFile = join(dir, PRIVATE_KEY_FILE);
  await writePrivateFile(privateKeyFile, `${keys.privateKey}\n`);
  return { privateKeyFile, ...keys };
}

/** The key pair in `dir`, made when there is none or the file is unreadable. */
export async function loadOrCreateWireguardKeys(dir: string): Promise<WireguardKeys> {
  const privateKeyFile = join(dir, PRIVATE_KEY_FILE);
  try {
    const privateKey = (await readFile(privateKeyFile, 'utf8')).trim();
    return { privateKeyFile, privateKey, publicKey: publicKeyOf(privateKey) };
  } catch {
    return createWireguardKeys(dir);
  }
}
