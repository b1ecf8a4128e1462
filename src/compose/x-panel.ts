/**
 * The `x-panel` vendor extension (Compose itself ignores `x-*` keys).
 *
 * At the document root:
 *   x-panel:
 *     principals:                 # host accounts a service may run as, by alias
 *       app:                      # alias: letter or _, then letters, digits, _ or -
 *         username: app           # optional, defaults to the alias; same pattern, at most 32 chars
 *         uid: 1001               # optional, 1..2147483647 (0, root, only with host access)
 *         gid: 1001               # optional, same range
 *         shell: /usr/sbin/nologin  # optional, one of `shells` (src/contract/enums.ts)
 *         description: text       # optional
 *   `placement` is refused: placement lives on the environment row only.
 *
 * On a service:
 *   x-panel:
 *     serviceKind: web            # one of SERVICE_KINDS
 *     principal: app              # an alias declared in the root principals
 *     hosting:                    # routes rendered into the reverse proxy
 *       - hostnames: [example.com]   # or hostname: example.com; required for http
 *         pathPrefix: /api           # http only, starts with /
 *         targetPort: 8080           # container port
 *         port: 5432                 # published port, required for tcp and udp
 *         protocol: http             # http (default) | tcp | udp
 *         bind: public               # public | datacenter | local
 *         tls: auto                  # http only: auto (ACME when the organization opted in, else internal) | internal (the organization CA) | none (plain http)
 *         description: text
 *     source: {sourceId: <uuid>, ...}  # where the image is built from; other keys are free-form
 *     php: {...}                  # free-form PHP runtime settings
 *     cron:
 *       - schedule: "*\/5 * * * *"   # five cron fields or @hourly, @daily, ...
 *         command: php artisan schedule:run   # string or list of strings
 *         description: text
 * Any other key under x-panel is refused.
 */
import { hostingProtocols, ipScopes, shells } from '../contract/enums.ts';
import { tlsModes } from '../contract/enums.ts';
import { isUuid } from '../lib/ids.ts';
import {
  entriesOf,
  expectInteger,
  expectKnownKeys,
  expectMapping,
  expectOneOf,
  expectSequence,
  expectString,
  itemsOf,
  plain,
} from './checks.ts';
import { composeInvalid } from './limits.ts';
import { type JsonObject, type JsonValue, joinPath } from './values.ts';

export const SERVICE_KINDS = ['web', 'worker', 'database', 'cache', 'cron', 'other'] as const;

const ROOT_KEYS = ['principals'] as const;
const SERVICE_KEYS = ['serviceKind', 'principal', 'hosting', 'source', 'php', 'cron'] as const;
const PRINCIPAL_KEYS = ['username', 'uid', 'gid', 'shell', 'description'] as const;
const HOSTING_KEYS = ['hostname', 'hostnames', 'pathPrefix', 'targetPort', 'port', 'protocol', 'bind', 'tls', 'description'] as const;
const CRON_KEYS = ['schedule', 'command', 'description'] as const;

const ALIAS = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const HOSTNAME = /^(\*\.)?([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const CRON_MACRO = /^@(yearly|annually|monthly|weekly|daily|midnight|hourly)$/;
const CRON_FIELD = /^[0-9A-Za-z*?,/-]+$/;
const MAX_ID = 2_147_483_647;

export const PLACEMENT_REFUSED =
  'x-panel.placement is not accepted in a stored document: placement is set on the environment (serverId)';

/** Validates the root `x-panel`; returns the principal aliases it declares. */
export function validateRootXPanel(value: JsonValue, hostAccess: boolean): Set<string> {
  const xPanel = expectMapping(value, 'x-panel');
  expectKnownKeys(xPanel, 'x-panel', ROOT_KEYS, { placement: PLACEMENT_REFUSED });
  const aliases = new Set<string>();
  if (xPanel.principals === undefined) return aliases;
  const principals = expectMapping(plain(xPanel.principals), 'x-panel.principals');
  for (const [alias, principal] of entriesOf(principals)) {
    const path = `x-panel.principals.${alias}`;
    expectString(alias, path, { pattern: ALIAS, max: 64, what: 'an alias of letters, digits, _ or -' });
    if (principal !== null) validatePrincipal(expectMapping(principal, path), path, hostAccess);
    aliases.add(alias);
  }
  return aliases;
}

function validatePrincipal(principal: JsonObject, path: string, hostAccess: boolean): void {
  expectKnownKeys(principal, path, PRINCIPAL_KEYS);
  for (const [key, value] of entriesOf(principal)) {
    const keyPath = joinPath(path, key);
    if (key === 'username') expectString(value, keyPath, { pattern: ALIAS, max: 32, what: 'a user name' });
    if (key === 'uid' || key === 'gid') expectInteger(value, keyPath, hostAccess ? 0 : 1, MAX_ID);
    if (key === 'shell') expectOneOf(value, keyPath, shells);
    if (key === 'description') expectString(value, keyPath, { max: 1000 });
  }
}

/** Validates a service's `x-panel`; `principals` are the aliases the principal may name. */
export function validateServiceXPanel(value: JsonValue, path: string, principals: ReadonlySet<string>): void {
  const xPanel = expectMapping(value, path);
  expectKnownKeys(xPanel, path, SERVICE_KEYS);
  for (const [key, item] of entriesOf(xPanel)) {
    const keyPath = joinPath(path, key);
    switch (key) {
      case 'serviceKind':
        expectOneOf(item, keyPath, SERVICE_KINDS);
        break;
      case 'principal':
        if (!principals.has(expectString(item, keyPath))) {
          throw composeInvalid(`${keyPath} names principal "${item}", which x-panel.principals does not declare`, keyPath);
        }
        break;
      case 'hosting':
        for (const [i, entry] of itemsOf(expectSequence(item, keyPath))) validateHosting(entry, joinPath(keyPath, i));
        break;
      case 'source':
        validateSource(item, keyPath);
        break;
      case 'php':
        expectMapping(item, keyPath);
        break;
      case 'cron':
        for (const [i, entry] of itemsOf(expectSequence(item, keyPath))) validateCron(entry, joinPath(keyPath, i));
        break;
    }
  }
}

function validateHosting(value: JsonValue, path: string): void {
  const hosting = expectMapping(value, path);
  expectKnownKeys(hosting, path, HOSTING_KEYS);
  const at = (key: string) => joinPath(path, key);
  const protocol = hosting.protocol === undefined ? 'http' : expectOneOf(plain(hosting.protocol), at('protocol'), hostingProtocols);
  const hostnames: string[] = [];
  if (hosting.hostname !== undefined) hostnames.push(expectHostname(plain(hosting.hostname), at('hostname')));
  if (hosting.hostnames !== undefined) {
    for (const [i, name] of itemsOf(expectSequence(plain(hosting.hostnames), at('hostnames')))) {
      hostnames.push(expectHostname(name, joinPath(at('hostnames'), i)));
    }
  }
  if (hosting.targetPort !== undefined) expectInteger(plain(hosting.targetPort), at('targetPort'), 1, 65535);
  if (hosting.port !== undefined) expectInteger(plain(hosting.port), at('port'), 1, 65535);
  if (hosting.bind !== undefined) expectOneOf(plain(hosting.bind), at('bind'), ipScopes);
  if (hosting.description !== undefined) expectString(plain(hosting.description), at('description'), { max: 1000 });
  if (hosting.pathPrefix !== undefined) {
    expectString(plain(hosting.pathPrefix), at('pathPrefix'), { pattern: /^\/[^\s*]*$/, max: 1024, what: "a path starting with / without '*'" });
  }
  if (hosting.tls !== undefined) expectOneOf(plain(hosting.tls), at('tls'), tlsModes);
  if (protocol === 'http') {
    if (hostnames.length === 0) throw composeInvalid(`${path} needs hostname or hostnames for http`, at('hostnames'));
    return;
  }
  if (hosting.port === undefined) throw composeInvalid(`${path} needs port for ${protocol}`, at('port'));
  for (const httpOnly of ['pathPrefix', 'tls']) {
    if (hosting[httpOnly] !== undefined) throw composeInvalid(`${at(httpOnly)} applies to http only`, at(httpOnly));
  }
}

function expectHostname(value: JsonValue, path: string): string {
  return expectString(value, path, { pattern: HOSTNAME, max: 253, what: 'a DNS name (optionally *.name)' });
}

function validateSource(value: JsonValue, path: string): void {
  const source = expectMapping(value, path);
  const sourceId = plain(source.sourceId ?? null);
  if (sourceId !== null && (typeof sourceId !== 'string' || !isUuid(sourceId.toLowerCase()))) {
    throw composeInvalid(`${path}.sourceId must be a uuid`, `${path}.sourceId`);
  }
}

function validateCron(value: JsonValue, path: string): void {
  const cron = expectMapping(value, path);
  expectKnownKeys(cron, path, CRON_KEYS);
  const schedulePath = joinPath(path, 'schedule');
  const schedule = expectString(plain(cron.schedule ?? null), schedulePath, { max: 200 }).trim();
  const fields = schedule.split(/\s+/);
  if (!CRON_MACRO.test(schedule) && !(fields.length === 5 && fields.every((field) => CRON_FIELD.test(field)))) {
    throw composeInvalid(`${schedulePath} must be five cron fields or a macro such as @hourly`, schedulePath);
  }
  const commandPath = joinPath(path, 'command');
  const command = plain(cron.command ?? null);
  if (Array.isArray(command)) {
    if (command.length === 0) throw composeInvalid(`${commandPath} must not be empty`, commandPath);
    for (const [i, part] of itemsOf(command)) expectString(part, joinPath(commandPath, i));
  } else {
    expectString(command, commandPath);
  }
  if (cron.description !== undefined) expectString(plain(cron.description), joinPath(path, 'description'), { max: 1000 });
}
