/**
 * The policy corpus: Compose documents with the path at which the tenant policy (no host access)
 * refuses each, run against save (PUT .../compose), deploy preview and the daemon's own check
 * (http/client/v1/compose-policy.security.test.ts, daemon/agent/project-check.security.test.ts).
 * Every document is valid Compose, so Compose itself accepts the allowed ones on the daemon.
 */
import type { JsonObject } from '../../values.ts';

export interface PolicyCase {
  name: string;
  /** The project base: YAML text, or `data` as the JSON API takes it. */
  base: string | JsonObject;
  /** An environment overlay, YAML. */
  overlay?: string;
  /** Where the policy refuses it without host access (in the layer that carries it); absent: allowed. */
  refused?: string;
  /** Refused with host access too: the platform owns it. Otherwise host access allows it. */
  always?: true;
  /** At the daemon (merged model): the path when it differs, or `inert` when Compose ignores the key. */
  daemon?: string;
}

/** A base whose service `web` (busybox) carries `settings` (YAML lines at the service's indent), plus `extra` top-level YAML. */
export function web(settings: string, extra = ''): string {
  const lines = settings.split('\n').map((line) => `    ${line}`);
  return `services:\n  web:\n    image: busybox\n${lines.join('\n')}\n${extra}`;
}

/** A second service (an `extra` of web()) that settings may name: network_mode service:db, depends_on... */
export const DB = '  db:\n    image: busybox\n';

/** `[name, settings of web, refused path?]` rows for a family of one-service cases. */
export function webCases(rows: [name: string, settings: string, refused?: string, extra?: string][]): PolicyCase[] {
  return rows.map(([name, settings, refused, extra]) => ({
    name,
    base: web(settings, extra),
    ...(refused === undefined ? {} : { refused: `services.web.${refused}` }),
  }));
}
