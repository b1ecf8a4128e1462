/**
 * The daemon surface (/api/daemon/v1). Daemons are not users: no session, no API token.
 *   POST /enroll {token, hostname, machineId, publicKey, keyId, name?} -> {serverId, credential}
 *   GET  /install.sh, /panel-daemon.service, /executable/<platform>[.sha256]  (downloads.ts)
 * 201 for a new server, 200 when the machine's existing record was reused (its credential and
 * key rotated, and its live connection, holding the old credential, closed with 4003).
 */
import { Elysia } from 'elysia';
import * as v from 'valibot';
import type { AppDeps } from '../../../app.ts';
import { CLOSE_CODES } from '../../../daemon/protocol.ts';
import { enrollServer } from '../../../domain/servers/enroll.ts';
import { clientAddress } from '../../plugins/rate-limit.ts';
import { errorResponses } from '../../schemas.ts';
import { downloadRoutes } from './downloads.ts';

const text = (max: number) => v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(max, `must be at most ${max} characters`));

/** A raw 32-byte X25519 key, unpadded canonical base64url (what generateDaemonKeyPair makes). */
const PublicKey = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9_-]{43}$/, 'must be a 32-byte X25519 public key in unpadded base64url'),
  v.check((key) => Buffer.from(key, 'base64url').toString('base64url') === key, 'must be canonical base64url'),
);

const EnrollBody = v.object({
  token: text(256),
  hostname: text(255),
  machineId: text(128),
  publicKey: PublicKey,
  keyId: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,32}$/, 'must be 1-32 of [A-Za-z0-9_-]')),
  /** The server's name as chosen for the join command (`panel daemon join --name`). */
  name: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(255, 'must be at most 255 characters'))),
});

const EnrolledSchema = v.object({ serverId: v.string(), credential: v.string() });

export const daemonV1 = (deps: AppDeps) =>
  new Elysia({ prefix: '/api/daemon/v1', detail: { tags: ['daemon'] } }).use(downloadRoutes(deps)).post(
    '/enroll',
    ({ body, request, server, set }) => {
      const enrolled = enrollServer(deps.db, deps.clock, body, clientAddress(server, request));
      // Published before the disconnect, whose own (newer) event then says the server is disconnected.
      deps.hub.feed.server(enrolled.server);
      if (enrolled.reenrolled) deps.hub.disconnect(enrolled.server.id, CLOSE_CODES.unauthorized, 'credential rotated by a new enrollment');
      deps.logger.info('server enrolled', { serverId: enrolled.server.id, organizationId: enrolled.server.organizationId, reenrolled: enrolled.reenrolled });
      set.status = enrolled.reenrolled ? 200 : 201;
      return { serverId: enrolled.server.id, credential: enrolled.credential };
    },
    {
      body: EnrollBody,
      response: { 200: EnrolledSchema, 201: EnrolledSchema, ...errorResponses('unauthenticated', 'machine_is_local', 'validation_failed', 'rate_limited') },
      detail: { summary: 'Enroll a server with a join token (panel daemon join); the credential is shown once' },
    },
  );
