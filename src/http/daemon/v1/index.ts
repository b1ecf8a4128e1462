/**
 * The daemon surface (/api/daemon/v1). Daemons are not users: no session, no API token.
 *   POST /enroll {token, hostname, machineId, publicKey, keyId, name?} -> {serverId, credential}
 *   GET  /install.sh, /panel-daemon.service, /executable/<platform>[.sha256]  (downloads.ts)
 * 201 for a new server, 200 when a token made to replace a server gave that record to this
 * machine (its credential and key rotated, and its live connection, holding the old credential,
 * closed with 4003); 409 machine_already_enrolled for a machine already enrolled and an ordinary token.
 */
import { Elysia } from 'elysia';
import type { AppDeps } from '../../../deps.ts';
import { Enrolled, EnrollRequest } from '../../../contract/daemon-protocol.ts';
import { enrollServer } from '../../../domain/servers/enroll.ts';
import { clientAddressOf } from '../../plugins/client-address.ts';
import { errorResponses } from '../../schemas.ts';
import { downloadRoutes } from './downloads.ts';

export const daemonV1 = (deps: AppDeps) =>
  new Elysia({ prefix: '/api/daemon/v1', detail: { tags: ['daemon'] } }).use(downloadRoutes(deps)).post(
    '/enroll',
    ({ body, request, set }) => {
      const enrolled = enrollServer({ db: deps.db, clock: deps.clock, notify: deps.hub.notifier }, body, clientAddressOf(request));
      deps.logger.info('server enrolled', { serverId: enrolled.server.id, organizationId: enrolled.server.organizationId, reenrolled: enrolled.reenrolled });
      set.status = enrolled.reenrolled ? 200 : 201;
      return { serverId: enrolled.server.id, credential: enrolled.credential };
    },
    {
      body: EnrollRequest,
      response: { 200: Enrolled, 201: Enrolled, ...errorResponses('invalid_join_token', 'machine_is_local', 'machine_already_enrolled', 'validation_failed', 'rate_limited') },
      detail: { summary: 'Enroll a server with a join token (panel daemon join); the credential is shown once' },
    },
  );
