/**
 * The organization's overlay fabric (ARCHITECTURE.md §8, Fabric; docs/FABRIC.md):
 *   GET   /organizations/:id/fabric   the settings and every server: converged / pending / error /
 *                                      not a member with the reason, allocations, peers with the
 *                                      endpoint used and the last handshake (any member)
 *   PATCH /organizations/:id/fabric   {enabled?, meshRange?, containerRange?} (owners)
 *   POST  /servers/:id/fabric/rotate-key   202, the fabric view: the server's daemon makes a new
 *                                      WireGuard key pair (admins)
 * Turning it on or off, like a server's endpoint or datacenter (PATCH /servers/:id), queues
 * fabric commands for the servers whose configuration changes; the hub delivers them.
 */
import { Elysia } from 'elysia';
import type { AppDeps } from '../../../deps.ts';
import { IdParams } from '../../../contract/common.ts';
import { FabricSettingsUpdate, FabricView } from '../../../contract/fabric.ts';
import { type FabricView as FabricViewModel, fabricView, requestKeyRotation, updateFabricSettings } from '../../../domain/fabric/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { isoOrNull } from '../../present.ts';
import { errorResponses } from '../../schemas.ts';
import { loadServer } from '../../../domain/servers/service.ts';

const present = (view: FabricViewModel): FabricView => ({
  organizationId: view.organization.id,
  enabled: view.organization.isFabricEnabled,
  meshRange: view.organization.fabricMeshRange,
  containerRange: view.organization.fabricContainerRange,
  servers: view.servers.map(({ server, member, state, reason, peers, keyRotationRequestedAt }) => ({
    serverId: server.id,
    name: server.name,
    status: server.status,
    state,
    reason,
    meshAddress: member?.meshAddress ?? null,
    listenPort: member?.listenPort ?? null,
    publicKey: server.wireguardPublicKey,
    candidates: server.fabricCandidates,
    endpoint: server.fabricEndpoint,
    datacenter: server.datacenter,
    reportedAt: isoOrNull(member?.reportedAt),
    keyRotationRequestedAt: isoOrNull(keyRotationRequestedAt),
    peers: peers.map((peer) => ({ serverId: peer.serverId, name: peer.name, endpoint: peer.endpoint, lastHandshakeAt: isoOrNull(peer.lastHandshakeAt) })),
  })),
});

/** A server's key rotation: a command to its daemon; the peers follow its report of the new key. */
const keyRotationRoute = (deps: AppDeps) =>
  new Elysia({ prefix: '/servers', detail: { tags: ['fabric'] } }).use(clientGuard(deps)).post(
    '/:id/fabric/rotate-key',
    ({ actor, params, set }) => {
      requestKeyRotation({ ...deps, notify: deps.hub.notifier }, actor, params.id);
      set.status = 202;
      return present(fabricView(deps.db, actor, loadServer(deps.db, actor, params.id).organizationId));
    },
    {
      params: IdParams,
      response: { 202: FabricView, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
      role: 'admin',
      detail: {
        summary: "Rotate a server's WireGuard key (admins)",
        description:
          "The server's daemon makes a new key pair, now or when it next connects (within an hour), and puts the new private key on its interface; its report of the new public key sends every peer a configuration with it in place of the old one. " +
          "Until then the server's `keyRotationRequestedAt` in the fabric view is set; asking again while one waits changes nothing. The private key never leaves the server.",
      },
    },
  );

const organizationFabricRoutes = (deps: AppDeps) =>
  new Elysia({ prefix: '/organizations', detail: { tags: ['fabric'] } })
    .use(clientGuard(deps))
    .get('/:id/fabric', ({ actor, params }) => present(fabricView(deps.db, actor, params.id)), {
      params: IdParams,
      response: { 200: FabricView, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
      role: 'member',
      detail: { summary: "The organization's overlay fabric: settings, and each server's state, allocations and peers" },
    })
    .patch(
      '/:id/fabric',
      ({ actor, params, body }) => {
        updateFabricSettings({ ...deps, notify: deps.hub.notifier }, actor, params.id, body);
        return present(fabricView(deps.db, actor, params.id));
      },
      {
        params: IdParams,
        body: FabricSettingsUpdate,
        response: { 200: FabricView, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed', 'fabric_range_in_use', 'fabric_range_exhausted') },
        role: 'owner',
        detail: {
          summary: 'Turn the overlay fabric on or off, or change its ranges (owners)',
          description:
            'On: every server whose daemon reported a WireGuard key becomes a member (a mesh address and a UDP port each) and gets its configuration as a command. ' +
            'Off: every member removes its interface, routes and rules; networks spanning servers stop working until their environments are redeployed on one server. ' +
            'The mesh range changes only while the fabric is off, the container range only while no network spans servers with it (409 `fabric_range_in_use`).',
        },
      },
    );

export const fabricRoutes = (deps: AppDeps) => new Elysia({ name: 'fabric' }).use(organizationFabricRoutes(deps)).use(keyRotationRoute(deps));
