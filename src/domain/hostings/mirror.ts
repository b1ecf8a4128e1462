/**
 * The hostname mirror writer: a hosting's `options.hostnames` copied into `hostname`, one row per
 * name, after checking no name repeats within the hosting or is routed by another hosting of the
 * organization (whatever the path prefix). Used by the hosting routes and by Compose reconcile.
 */
import { conflict, validationFailed } from '../../lib/errors.ts';
import type { Queryable } from '../shared/database.ts';
import { hostnamesRoutedElsewhere, replaceHostnames } from './queries.ts';

/** The hostnames to mirror: no repeats within the hosting, none routed by another hosting. */
export function checkHostnames(db: Queryable, organizationId: string, names: readonly string[], hostingId?: string): string[] {
  const lowered = names.map((name) => name.toLowerCase());
  lowered.forEach((name, index) => {
    if (lowered.indexOf(name) !== index) throw validationFailed(`hostname '${names[index]}' is listed twice`, `options.hostnames.${index}`);
  });
  const taken = hostnamesRoutedElsewhere(db, organizationId, lowered, hostingId);
  const index = lowered.findIndex((name) => taken.has(name));
  if (index >= 0) {
    throw conflict('hostname_in_use', `hostname '${names[index]}' is already routed by another hosting`, `options.hostnames.${index}`);
  }
  return [...names];
}

/** Checks the names and rewrites the hosting's mirror rows (in the caller's transaction). */
export function writeHostnameMirror(db: Queryable, organizationId: string, hostingId: string, names: readonly string[]): void {
  replaceHostnames(db, hostingId, organizationId, checkHostnames(db, organizationId, names, hostingId));
}
