/**
 * Host ports a service publishes, as the planner needs them: which (protocol, address, port
 * range) a container of it takes on its server. Compose's short syntax
 * (`[IP:]HOST[-HOST]:CONTAINER[-CONTAINER][/PROTOCOL]`, IPv6 addresses in brackets) and long
 * syntax (`published`, `host_ip`, `protocol`). Entries publishing no fixed port (`"80"`, no
 * `published`) take a random port and never conflict; an entry Compose would interpolate (`$`)
 * cannot be known before it does and is left out.
 */
import { composeInvalid } from '../limits.ts';
import { isMapping, type JsonValue } from '../values.ts';

export interface HostPort {
  protocol: string;
  /** Null: every address (0.0.0.0, ::, or none named). */
  address: string | null;
  from: number;
  to: number;
  /**
   * How many containers of the service can take this binding on one server: a host range mapped
   * to one container port gives each container one port of the range; anything else, one.
   */
  perServer: number;
  /** As written, for messages. */
  text: string;
}

const WILDCARDS = new Set(['', '0.0.0.0', '::', '[::]']);
const RANGE = /^(\d{1,5})(?:-(\d{1,5}))?$/;

function range(text: string, path: string): [number, number] {
  const match = RANGE.exec(text);
  const from = match ? Number(match[1]) : Number.NaN;
  const to = match?.[2] === undefined ? from : Number(match[2]);
  if (!(from >= 1 && to <= 65535 && from <= to)) throw composeInvalid(`${path}: "${text}" is not a port or port range (1-65535)`, path);
  return [from, to];
}

/** Undefined for published port 0 (Compose's "any free port"). */
function binding(address: string, published: string, target: string, protocol: string, text: string, path: string): HostPort | undefined {
  if (/^0+$/.test(published)) return undefined;
  const [from, to] = range(published, path);
  const [targetFrom, targetTo] = range(target, path);
  const single = targetFrom === targetTo;
  const bare = address.replace(/^\[(.*)\]$/, '$1');
  return {
    protocol: protocol.toLowerCase(),
    address: WILDCARDS.has(address) ? null : bare,
    from,
    to,
    perServer: single ? to - from + 1 : 1,
    text,
  };
}

/** `[IP:]HOST:CONTAINER[/PROTOCOL]`, or undefined when it publishes no fixed port. */
function shortSyntax(text: string, path: string): HostPort | undefined {
  const [spec = '', protocol = 'tcp'] = text.split('/');
  let address = '';
  let rest = spec;
  const bracketed = /^(\[[^\]]*\]):(.*)$/.exec(spec);
  if (bracketed) {
    address = bracketed[1]!;
    rest = bracketed[2]!;
  }
  const parts = rest.split(':');
  if (parts.length === 1) return undefined; // container port only: a random host port
  if (!bracketed && parts.length > 3) {
    // An unbracketed IPv6 address: everything before the last two fields.
    address = parts.slice(0, -2).join(':');
    parts.splice(0, parts.length - 2);
  } else if (parts.length === 3) {
    address = parts.shift()!;
  }
  const [published = '', target = ''] = parts;
  if (published === '') return undefined; // "IP::CONTAINER": a random host port on IP
  return binding(address, published, target, protocol, text, path);
}

export function publishedPorts(ports: JsonValue | undefined, path: string): HostPort[] {
  if (!Array.isArray(ports)) return [];
  const found: HostPort[] = [];
  for (const [i, entry] of ports.entries()) {
    const at = `${path}.${i}`;
    if (isMapping(entry)) {
      const published = entry.published;
      if (published === undefined || published === null || published === '' || String(published).includes('$')) continue;
      if (String(entry.target ?? '').includes('$')) continue;
      const address = entry.host_ip === undefined || entry.host_ip === null ? '' : String(entry.host_ip);
      const text = `${address === '' ? '' : `${address}:`}${published}:${entry.target}/${entry.protocol ?? 'tcp'}`;
      const port = binding(address, String(published), String(entry.target ?? ''), String(entry.protocol ?? 'tcp'), text, at);
      if (port !== undefined) found.push(port);
      continue;
    }
    const text = String(entry);
    if (text.includes('$')) continue;
    const port = shortSyntax(text, at);
    if (port !== undefined) found.push(port);
  }
  return found;
}

/** Whether two bindings can not both be bound on one server. */
export function portsCollide(a: HostPort, b: HostPort): boolean {
  if (a.protocol !== b.protocol || a.to < b.from || b.to < a.from) return false;
  return a.address === null || b.address === null || a.address === b.address;
}
