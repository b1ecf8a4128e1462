import { EnvelopeError, type KeyRing, resealSecret, type SecretOwner } from '../../crypto/index.ts';

/** Where sealed values live: a pnsecret envelope opens only at its own table, column and row. */
export const variableValueOwner = (id: string): SecretOwner => ({ table: 'variable', column: 'value', id });
export const principalPasswordOwner = (id: string): SecretOwner => ({ table: 'principal', column: 'password', id });

/**
 * Lazy re-seal on write (key rotation): an envelope sealed under an older key comes back sealed
 * under the current one. An envelope that no longer opens (its key left the ring) is kept as it
 * is, so an unrelated edit never destroys it; the re-encryption run reports it.
 */
export function resealIfStale(keyring: KeyRing, envelope: string, owner: SecretOwner): string {
  try {
    return resealSecret(keyring, envelope, owner).envelope;
  } catch (error) {
    if (error instanceof EnvelopeError) return envelope;
    throw error;
  }
}
