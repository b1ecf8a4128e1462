/**
 * The daemon protocol on `/ws/daemon/v1`, shared by the hub (control plane) and the agent
 * (`panel daemon`). Every WebSocket message is one UTF-8 JSON text frame of at most
 * MAX_FRAME_BYTES (MAX_HUB_FRAME_BYTES from the hub), shaped by `Frame`: one valibot
 * discriminated union on `type`.
 *
 * Conversation (ARCHITECTURE.md §6):
 *   agent -> hub   hello                      first frame, once per connection
 *   hub -> agent   welcome                    the canonical server record the hello resolved to
 *   hub -> agent   command                    durable: redelivered until a result arrives
 *   agent -> hub   ack, report?, result       ack on receipt; report(s) then result when done
 *   agent -> hub   ingress                    the server's ingress state (src/ingress/)
 *   agent -> hub   fabric                     the server's overlay fabric state (src/contract/fabric.ts)
 *   hub -> agent   ping    agent -> hub pong  liveness, either way round
 *
 * Unknown object keys are ignored (a newer peer may add fields); unknown frame types, missing
 * or mistyped fields are refused. A refused frame closes the connection with the close code of
 * its `FrameError`, except a `command` whose id is readable: the receiver answers that command
 * with a failed `result` instead, so one bad command cannot wedge a redelivering hub.
 */
import * as v from 'valibot';
import { IngressPayload, IngressState } from './ingress.ts';
import { toContainerState } from './container-state.ts';
import { FabricCommandPayload, FabricNetwork, FabricStatus } from './fabric.ts';

/** Where a daemon enrolls (POST) and where it connects (WebSocket), relative to the control plane's URL. */
export const ENROLL_PATH = '/api/daemon/v1/enroll';
export const DAEMON_WS_PATH = '/ws/daemon/v1';

const enrollText = (max: number) => v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(max, `must be at most ${max} characters`));

/** `panel daemon join` posts this to ENROLL_PATH. `publicKey` is a raw 32-byte X25519 key in canonical unpadded base64url. */
export const EnrollRequest = v.object({
  token: enrollText(256),
  hostname: enrollText(255),
  machineId: enrollText(128),
  // 43 characters carry 258 bits: the last one must leave the 2 spare bits zero to be canonical.
  publicKey: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/, 'must be a 32-byte X25519 public key in canonical unpadded base64url')),
  keyId: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,32}$/, 'must be 1-32 of [A-Za-z0-9_-]')),
  /** The server's name as chosen for the join command (`panel daemon join --name`); default its hostname. */
  name: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(255, 'must be at most 255 characters'))),
});
export type EnrollRequest = v.InferInput<typeof EnrollRequest>;
/** 201 for a new server, 200 when the machine's record was reused (its credential rotated). */
export const Enrolled = v.object({ serverId: v.pipe(v.string(), v.uuid()), credential: v.pipe(v.string(), v.minLength(1)) });
export type Enrolled = v.InferOutput<typeof Enrolled>;

/** Largest frame the hub accepts from a daemon, counted in UTF-8 bytes. */
export const MAX_FRAME_BYTES = 256 * 1024;
/**
 * Largest frame a daemon accepts from the hub: an ingress deploy carries every route and library
 * certificate of its server, more than a daemon ever sends. The hub is the authenticated side.
 */
export const MAX_HUB_FRAME_BYTES = 16 * 1024 * 1024;

/** WebSocket close codes (4000-4999 are application codes) and what the agent does on each. */
export const CLOSE_CODES = {
  /** Orderly shutdown of either side; the agent reconnects with backoff unless it is stopping. */
  normal: 1000,
  /** The hub is going away (restart); the agent reconnects with backoff. */
  goingAway: 1001,
  /** Not yet (the local daemon arrived before the install): the agent retries every 2 s. */
  tryAgainLater: 1013,
  /** A frame was not JSON, or not one of the frames below. */
  malformedFrame: 4000,
  /** A frame exceeded MAX_FRAME_BYTES. */
  frameTooLarge: 4001,
  /** A valid frame out of order: anything before `hello`, a second `hello`, a hub-only frame from an agent. */
  unexpectedFrame: 4002,
  /** The credential is unknown or revoked: the agent parks (stops retrying) until re-joined. */
  unauthorized: 4003,
  /** No `hello` within the hub's deadline after the upgrade. */
  helloTimeout: 4008,
  /** Another connection of the same server replaced this one; the agent retries after the longest backoff. */
  replaced: 4009,
  /**
   * The local slot: the hello's daemon key is not the one pinned for the local server (or is
   * missing). The key stays as it was; the agent retries after the longest backoff, so once an
   * operator allows a new key (`panel local-daemon reset-key`) it reconnects on its own.
   */
  localKeyRefused: 4010,
} as const;

export type CloseCode = (typeof CLOSE_CODES)[keyof typeof CLOSE_CODES];

/** Compose project names the agent accepts: what Compose itself allows, minus the leading `_`/`-`. */
export const PROJECT_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;
/** Secret file names: one path segment, never `.`/`..`, so a name cannot leave `secrets/`. */
export const SECRET_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
const COMMAND_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

const text = (max: number) => v.pipe(v.string(), v.minLength(1), v.maxLength(max));
const commandId = v.pipe(v.string(), v.regex(COMMAND_ID_PATTERN, 'command id must be 1-64 of [A-Za-z0-9_-]'));
const projectName = v.pipe(v.string(), v.regex(PROJECT_NAME_PATTERN, 'project name must match ^[a-z0-9][a-z0-9_-]{0,62}$'));
const uuid = v.pipe(v.string(), v.uuid());

/** A secret delivered with a deploy: `envelope` is `pndaemon.v1.<serverId>.<keyId>.<payload>`. */
const DeploySecret = v.object({
  name: v.pipe(v.string(), v.regex(SECRET_NAME_PATTERN, 'secret name must be one file name of [A-Za-z0-9_.-]')),
  envelope: text(64 * 1024),
});

/**
 * The Compose policy the daemon holds a deploy to before `up` (docs/SECURITY.md): the
 * organization's host access as it applies to this server, and whether the project is
 * platform-owned. Absent (a command queued by an older control plane): the tenant policy without
 * host access.
 */
const DeployPolicy = v.object({ hostAccess: v.boolean(), platform: v.boolean() });

/**
 * Deploy: write `compose` (the compiled runtime compose.yaml) and the secrets, check them against
 * `policy`, then `up -d`. With `ingress` it is a server's ingress (src/ingress/): after `up`, the
 * daemon configures its Caddy from these routes and what it observes on the server. `fabric` lists the document's networks that span servers: the daemon
 * routes and admits them over its fabric interface before `up` (and forgets them when a later
 * deploy has none); the policy allows their bridge and subnet and nothing else of the kind.
 */
const DeployCommand = v.object({
  type: v.literal('command'),
  id: commandId,
  kind: v.literal('deploy'),
  payload: v.object({
    deploymentId: uuid,
    project: projectName,
    compose: text(MAX_HUB_FRAME_BYTES),
    secrets: v.pipe(
      v.array(DeploySecret),
      v.check((secrets) => new Set(secrets.map((secret) => secret.name)).size === secrets.length, 'secret names must be unique'),
    ),
    policy: v.optional(DeployPolicy),
    ingress: v.optional(IngressPayload),
    fabric: v.optional(v.pipe(v.array(FabricNetwork), v.maxLength(64))),
  }),
});

/** Fabric: bring the server's WireGuard interface, peers, routes and rules to `config` (`up`), or remove them (`down`). */
const FabricCommand = v.object({ type: v.literal('command'), id: commandId, kind: v.literal('fabric'), payload: FabricCommandPayload });

/** Stop (`compose stop`: containers kept) or destroy (`down --volumes`, the project folder removed). */
const StopOrDestroyPayload = v.object({ deploymentId: uuid, project: projectName });
/** Stop: `compose stop`, the containers kept. With `remove` (a server the placement no longer
 * uses), `compose down`: the containers go, volumes and the project folder stay. */
const StopPayload = v.object({ ...StopOrDestroyPayload.entries, remove: v.optional(v.boolean()) });
const StopCommand = v.object({ type: v.literal('command'), id: commandId, kind: v.literal('stop'), payload: StopPayload });
const DestroyCommand = v.object({ type: v.literal('command'), id: commandId, kind: v.literal('destroy'), payload: StopOrDestroyPayload });

/**
 * One container as the runtime lists it. `service` is the Compose service key. A `state` outside
 * the specification's list (a newer runtime's word, a typo, a missing value) reads as `unknown`,
 * as the state table says, instead of refusing the whole report.
 */
const ReportedContainer = v.object({
  containerId: text(128),
  name: text(255),
  service: v.string(),
  state: v.pipe(v.optional(v.unknown(), 'unknown'), v.transform(toContainerState)),
  /** Docker's human status, e.g. "Up 3 minutes". */
  status: v.optional(v.string()),
  labels: v.optional(v.record(v.string(), v.string())),
});

const CommandFailure = v.object({ code: text(64), message: v.pipe(v.string(), v.maxLength(4096)) });

export const Frame = v.variant('type', [
  /** agent -> hub, first frame. `serverId` is the persisted one (absent before the first welcome
   * of a local daemon). `daemonKey` is sent only by the local daemon, which never enrolls: the hub
   * pins it at the first hello so it can seal `pndaemon` envelopes to the local slot, and refuses
   * another key until an operator resets the pin. Docker versions are null
   * when the engine or Compose cannot be reached. */
  v.object({
    type: v.literal('hello'),
    hostname: text(255),
    serverId: v.optional(uuid),
    machineId: text(128),
    version: text(64),
    docker: v.object({ version: v.nullable(v.string()), composeVersion: v.nullable(v.string()) }),
    daemonKey: v.optional(v.object({ keyId: text(32), publicKey: text(64) })),
  }),
  /** hub -> agent: the canonical server record; envelopes are sealed to this server id. */
  v.object({ type: v.literal('welcome'), serverId: uuid }),
  /** hub -> agent: one durable command. The agent runs an id at most once; a redelivered id is
   * acked again and, once finished, answered with the recorded result. */
  v.variant('kind', [DeployCommand, StopCommand, DestroyCommand, FabricCommand]),
  /** agent -> hub: the command was received and will run (or already ran). */
  v.object({ type: v.literal('ack'), id: commandId }),
  /** agent -> hub: the command finished; `data` on success, `error` on failure. */
  v.variant('ok', [
    v.object({ type: v.literal('result'), id: commandId, ok: v.literal(true), data: v.optional(v.record(v.string(), v.unknown())) }),
    v.object({ type: v.literal('result'), id: commandId, ok: v.literal(false), error: CommandFailure }),
  ]),
  /** agent -> hub: the containers of one Compose project as the runtime lists them now. Sent after
   * a command (with its `commandId`) before its result; an empty list after stop or destroy. */
  v.object({
    type: v.literal('report'),
    commandId: v.optional(commandId),
    project: projectName,
    containers: v.array(ReportedContainer),
  }),
  /** agent -> hub: what changed in the server's ingress (routes, certificates), after each apply
   * and whenever a certificate moves on. */
  v.object({ type: v.literal('ingress'), ...IngressState.entries }),
  /** agent -> hub: the overlay fabric on this server: after connecting, after every apply, and
   * every minute while its interface is up. */
  v.object({ type: v.literal('fabric'), ...FabricStatus.entries }),
  /** either way: liveness probe; `ts` is the sender's clock in epoch milliseconds. */
  v.object({ type: v.literal('ping'), ts: v.number() }),
  /** either way: answer to `ping`, echoing its `ts`. */
  v.object({ type: v.literal('pong'), ts: v.number() }),
]);

export type Frame = v.InferOutput<typeof Frame>;
export type FrameType = Frame['type'];
export type FrameOf<T extends FrameType> = Extract<Frame, { type: T }>;
export type HelloFrame = FrameOf<'hello'>;
export type CommandFrame = FrameOf<'command'>;
export type CommandKind = CommandFrame['kind'];
export type ResultFrame = FrameOf<'result'>;
export type ReportFrame = FrameOf<'report'>;
export type IngressFrame = FrameOf<'ingress'>;
export type FabricFrame = FrameOf<'fabric'>;
export type ReportedContainer = v.InferOutput<typeof ReportedContainer>;
export type CommandFailure = v.InferOutput<typeof CommandFailure>;

/** A refused frame: `closeCode`/`closeReason` are what to close the socket with. `commandId` is
 * set when the frame was a command with a readable id (answer it with a failed result instead). */
export class FrameError extends Error {
  constructor(
    readonly closeCode: CloseCode,
    readonly closeReason: string,
    readonly commandId?: string,
  ) {
    super(closeReason);
    this.name = 'FrameError';
  }
}

/** Parses one received text frame or throws `FrameError` saying why it is refused. */
export function parseFrame(text: string, maxBytes = MAX_FRAME_BYTES): Frame {
  // A UTF-8 byte is at most one UTF-16 unit and a unit at most 3 bytes: decide cheaply when possible.
  if (text.length > maxBytes || (text.length * 3 > maxBytes && utf8Length(text) > maxBytes)) {
    throw new FrameError(CLOSE_CODES.frameTooLarge, `frame exceeds ${maxBytes} bytes`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new FrameError(CLOSE_CODES.malformedFrame, 'frame is not valid JSON');
  }
  const parsed = v.safeParse(Frame, json);
  if (parsed.success) return parsed.output;
  throw new FrameError(CLOSE_CODES.malformedFrame, describeIssue(json, parsed.issues[0]), readableCommandId(json));
}

/** Serializes a frame; throws `FrameError` when it would exceed what the peer accepts. */
export function encodeFrame(frame: Frame, maxBytes = MAX_FRAME_BYTES): string {
  const encoded = JSON.stringify(frame);
  if (utf8Length(encoded) > maxBytes) {
    throw new FrameError(CLOSE_CODES.frameTooLarge, `${frame.type} frame exceeds ${maxBytes} bytes`);
  }
  return encoded;
}

/** UTF-8 length of a string without Buffer (browser-safe); a lone surrogate counts as U+FFFD (3 bytes). */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** A close reason must fit in 123 UTF-8 bytes: printable ASCII only, then 123 characters suffice. */
function describeIssue(json: unknown, issue: v.BaseIssue<unknown> | undefined): string {
  const type = json !== null && typeof json === 'object' ? (json as { type?: unknown }).type : undefined;
  if (typeof type !== 'string') return 'frame has no string "type"';
  const path = issue?.path?.map((item) => String(item.key)).join('.');
  const detail = issue ? `${path ? `${path}: ` : ''}${issue.message}` : 'invalid';
  return `invalid ${type.slice(0, 16)} frame: ${detail}`.replace(/[^\x20-\x7e]/g, '?').slice(0, 123);
}

function readableCommandId(json: unknown): string | undefined {
  if (json === null || typeof json !== 'object') return undefined;
  const { type, id } = json as { type?: unknown; id?: unknown };
  return type === 'command' && typeof id === 'string' && COMMAND_ID_PATTERN.test(id) ? id : undefined;
}
