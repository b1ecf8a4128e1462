/**
 * What a new server needs to join, served by the control plane itself (issue 14 §2), so the
 * console's join command is one line that needs nothing but this Panel:
 *   GET /api/daemon/v1/install.sh                         install.sh; its --daemon mode installs and joins
 *   GET /api/daemon/v1/panel-daemon.service               the unit template install.sh renders
 *   GET /api/daemon/v1/executable/<platform>.sha256       `<sha256>  panel`, what the download must hash to
 *   GET /api/daemon/v1/executable/<platform>              this very executable; Authorization: Bearer <join token>
 * The executable (~100 MB) is handed only to a caller holding a join token that can still enroll
 * (refusals count against the address, like enrollment), so nobody else can make Panel stream it
 * over and over. Only the platform Panel runs on is served (src/ops/executable.ts).
 */
import { Elysia } from 'elysia';
import * as v from 'valibot';
import remoteDaemonUnit from '../../../../deploy/systemd/panel-daemon-remote.service' with { type: 'text' };
import type { AppDeps } from '../../../deps.ts';
import { INSTALL_SCRIPT } from '../../../ops/install-script.ts';
import { acceptJoinToken } from '../../../domain/servers/enroll.ts';
import { DomainError, validationFailed } from '../../../lib/errors.ts';
import { bearerOf } from '../../plugins/guard.ts';
import { clientAddressOf } from '../../plugins/client-address.ts';
import { OPTIONAL_JOIN_TOKEN } from '../../plugins/security.ts';
import { errorResponses } from '../../schemas.ts';

const PLATFORM = /^[a-z0-9]+-[a-z0-9]+$/;

const text = (body: string, type: string) => new Response(body, { headers: { 'content-type': `${type}; charset=utf-8`, 'cache-control': 'no-store' } });

export const downloadRoutes = (deps: AppDeps) => {
  const executable = (platform: string) => {
    const self = deps.executable;
    if (!self || self.platform !== platform) {
      throw new DomainError('not_found', `this Panel serves the executable for ${self?.platform ?? 'no platform'} only (it runs on that one); install Panel on ${platform} by hand`);
    }
    return self.file();
  };
  // Mounted inside the daemon surface, which adds /api/daemon/v1.
  return new Elysia({ detail: { tags: ['daemon'] } })
    .get('/install.sh', () => text(INSTALL_SCRIPT, 'text/x-shellscript'), {
      detail: { summary: 'install.sh, whose --daemon mode downloads this executable, checks its SHA-256, installs the daemon unit and joins' },
    })
    .get('/panel-daemon.service', () => text(remoteDaemonUnit, 'text/plain'), {
      detail: { summary: "The systemd unit template of a joined server's daemon (install.sh --daemon fills it in)" },
    })
    .get(
      '/executable/:file',
      async ({ params, request }) => {
        const checksum = params.file.endsWith('.sha256');
        const platform = checksum ? params.file.slice(0, -'.sha256'.length) : params.file;
        if (!PLATFORM.test(platform)) throw validationFailed('must be <os>-<architecture>, like linux-x64, or that with .sha256', 'file');
        if (checksum) {
          const built = await executable(platform);
          return text(`${built.sha256}  panel\n`, 'text/plain');
        }
        acceptJoinToken(deps.db, deps.clock, bearerOf(request) ?? '', clientAddressOf(request));
        const built = await executable(platform);
        return new Response(Bun.file(built.path), {
          headers: {
            'content-type': 'application/octet-stream',
            'content-disposition': 'attachment; filename="panel"',
            'content-length': String(built.size),
            'x-checksum-sha256': built.sha256,
            'cache-control': 'no-store',
          },
        });
      },
      {
        params: v.object({ file: v.pipe(v.string(), v.maxLength(64)) }),
        // 200: the executable (application/octet-stream) or its checksum line (text/plain).
        response: { 200: v.unknown(), ...errorResponses('unauthenticated', 'invalid_join_token', 'not_found', 'validation_failed', 'rate_limited') },
        detail: {
          summary: 'This executable for <platform> (e.g. linux-x64), with a valid join token as Bearer; <platform>.sha256 is its checksum (public)',
          security: OPTIONAL_JOIN_TOKEN,
        },
      },
    );
};
