/**
 * The organization TLS library: certificates people upload (a PEM chain, leaf first, and the
 * leaf's private key) for hostings to pin with `tls_id`. Everything is checked before it is
 * stored (src/crypto/certificates.ts): the key must belong to the leaf, the chain must be in
 * order, the leaf must be valid now. The key is write-only: sealed as `pnsecret` for its row,
 * never answered, and delivered to a daemon only re-sealed as `pndaemon`. Deleting a certificate
 * sets `tls_id` null on the hostings that pinned it (the database's ON DELETE SET NULL).
 */
import type { X509Certificate } from 'node:crypto';
import {
  CertificateError,
  checkCertificate,
  chainPem,
  keyPem,
  readCertificateChain,
  readPrivateKey,
} from '../../crypto/certificates.ts';
import { type KeyRing, openSecret, type SecretOwner, sealSecret } from '../../crypto/index.ts';
import type { Tls } from '../../db/schema/index.ts';
import type { Clock } from '../../lib/clock.ts';
import { DomainError, validationFailed } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { type Access, type Actor, authorize, loadFor } from '../actor.ts';
import type { Queryable } from '../shared/database.ts';
import type { Page, PageRequest } from '../shared/pagination.ts';
import { deleteCertificateRow, findCertificate, insertCertificate, listCertificatesOf, updateCertificateRow } from './queries.ts';

export interface CertificateContext {
  db: Queryable;
  keyring: KeyRing;
  clock: Clock;
}

export const certificateKeyOwner = (id: string): SecretOwner => ({ table: 'tls', column: 'private_key', id });

export interface CertificateFields {
  name?: string;
  /** PEM chain, leaf first. */
  certificate?: string;
  /** PEM private key of the leaf (write-only). */
  privateKey?: string;
}

export function loadCertificate(db: Queryable, actor: Actor, id: string, access: Access = 'read'): Tls {
  return loadFor(actor, access, 'certificate', findCertificate(db, id));
}

export function listCertificates(db: Queryable, actor: Actor, organizationId: string, page: PageRequest): Page<Tls> {
  authorize(actor, organizationId, 'read', 'organization');
  return listCertificatesOf(db, organizationId, page);
}

/** The checked chain and key, normalized (a CertificateError becomes 422 on its field). */
function checked(chain: () => X509Certificate[], key: () => ReturnType<typeof readPrivateKey>, now: Date) {
  try {
    const certificates = chain();
    const privateKey = key();
    checkCertificate(certificates, privateKey, now);
    return { certificate: chainPem(certificates), privateKey: keyPem(privateKey) };
  } catch (error) {
    if (error instanceof CertificateError) throw validationFailed(`${error.field} ${error.message}`, error.field);
    throw error;
  }
}

export function createCertificate(ctx: CertificateContext, actor: Actor, input: Required<CertificateFields> & { organizationId: string }): Tls {
  authorize(actor, input.organizationId, 'write', 'organization');
  const pem = checked(() => readCertificateChain(input.certificate), () => readPrivateKey(input.privateKey), ctx.clock.now());
  const id = newId();
  return insertCertificate(ctx.db, {
    id,
    organizationId: input.organizationId,
    name: input.name,
    certificate: pem.certificate,
    privateKey: sealSecret(ctx.keyring, pem.privateKey, certificateKeyOwner(id)),
  });
}

/** The stored key in plaintext, for checking a new chain against it (memory only). */
function storedKey(keyring: KeyRing, row: Tls): string {
  try {
    return openSecret(keyring, row.privateKey, certificateKeyOwner(row.id));
  } catch {
    throw new DomainError('secret_unreadable', 'the stored private key cannot be opened with the current key ring; upload the key with the certificate', 'privateKey');
  }
}

/**
 * Renames, or replaces the chain and/or the key: a new chain alone is checked against the stored
 * key (a renewal keeping its key), a new key alone against the stored chain.
 */
export function updateCertificate(ctx: CertificateContext, actor: Actor, id: string, changes: CertificateFields): Tls {
  const row = loadCertificate(ctx.db, actor, id, 'write');
  if (changes.certificate === undefined && changes.privateKey === undefined) {
    return changes.name === undefined || changes.name === row.name ? row : updateCertificateRow(ctx.db, id, { name: changes.name });
  }
  const pem = checked(
    () => readCertificateChain(changes.certificate ?? row.certificate),
    () => readPrivateKey(changes.privateKey ?? storedKey(ctx.keyring, row)),
    ctx.clock.now(),
  );
  return updateCertificateRow(ctx.db, id, {
    name: changes.name,
    certificate: pem.certificate,
    privateKey: sealSecret(ctx.keyring, pem.privateKey, certificateKeyOwner(id)),
  });
}

/** Hostings that pinned it fall back to an internal certificate (tls_id set null). */
export function deleteCertificate(db: Queryable, actor: Actor, id: string): Tls {
  const row = loadCertificate(db, actor, id, 'write');
  deleteCertificateRow(db, id);
  return row;
}
