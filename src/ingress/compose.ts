/**
 * The Compose document of a server's ingress: one Caddy container, platform-owned (component
 * `hosting-ingress`, container role `ingress`). Pure.
 *
 * - Host networking: Caddy binds :80 and :443 itself (no docker-proxy in the path, clients'
 *   own addresses in X-Forwarded-For) and reaches every container at its bridge address, which
 *   only this host can route to; no upstream port is published (docs/DECISIONS.md "Ingress").
 * - Its folders are relative binds inside its own project folder (`./state`, kept across
 *   deploys; the Compose policy's rule for platform projects): the configuration
 *   and certificate files read-only, the admin socket (the only admin listener: never TCP),
 *   Caddy's storage and the certificate log.
 * - Every capability dropped but binding low ports; no new privileges.
 * - The entrypoint is named explicitly, so the official image and a local one made from the
 *   caddy binary (the lab's) run alike.
 */
import { writeComposeYaml } from '../compose/compose-yaml.ts';
import { applyPlatformLabels, composeProjectName, uuidContainerName } from '../compose/naming.ts';
import type { JsonObject } from '../compose/values.ts';

/** Where things are inside the Caddy container. */
export const INGRESS_PATHS = {
  configDir: '/etc/panel-ingress',
  config: '/etc/panel-ingress/caddy.json',
  files: '/etc/panel-ingress/files',
  runDir: '/run/panel-ingress',
  adminSocket: '/run/panel-ingress/admin.sock',
  data: '/data',
  storage: '/data/caddy',
  logDir: '/var/log/panel-ingress',
  certificatesLog: '/var/log/panel-ingress/certificates.log',
} as const;

/** The ingress's folder inside its project folder (which outlives deploys). */
export const INGRESS_STATE_FOLDER = 'state';
export const INGRESS_SERVICE = 'caddy';

export interface IngressComposeInput {
  image: string;
  organizationId: string;
  projectId: string;
  environmentId: string;
  serviceId: string;
}

export function ingressComposeModel(input: IngressComposeInput): JsonObject {
  const dir = `./${INGRESS_STATE_FOLDER}`;
  const caddy: JsonObject = {
    image: input.image,
    container_name: uuidContainerName(input.serviceId, 'ingress'),
    entrypoint: ['/usr/bin/caddy'],
    command: ['run', '--config', INGRESS_PATHS.config],
    network_mode: 'host',
    restart: 'unless-stopped',
    environment: { XDG_DATA_HOME: INGRESS_PATHS.data, XDG_CONFIG_HOME: `${INGRESS_PATHS.data}/config` },
    volumes: [
      `${dir}/etc:${INGRESS_PATHS.configDir}:ro`,
      `${dir}/run:${INGRESS_PATHS.runDir}`,
      `${dir}/data:${INGRESS_PATHS.data}`,
      `${dir}/log:${INGRESS_PATHS.logDir}`,
    ],
    cap_drop: ['ALL'],
    cap_add: ['NET_BIND_SERVICE'],
    security_opt: ['no-new-privileges:true'],
    stop_grace_period: '10s',
  };
  applyPlatformLabels(caddy, {
    organizationId: input.organizationId,
    projectId: input.projectId,
    environmentId: input.environmentId,
    serviceId: input.serviceId,
    composeServiceName: INGRESS_SERVICE,
    role: 'ingress',
    ordinal: '1',
  });
  return { name: composeProjectName(input.environmentId), services: { [INGRESS_SERVICE]: caddy } };
}

export const ingressComposeYaml = (input: IngressComposeInput): string => writeComposeYaml(ingressComposeModel(input));
