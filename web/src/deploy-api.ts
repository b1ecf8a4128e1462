/**
 * Typed calls for variables, servers, join tokens, services and deploys (client API v1). Kept
 * beside api.ts, whose `call` does the transport and error mapping.
 */
import { call, type Environment, type Page, type Project } from './api.ts';
import type { ResolvedVariable } from '../../src/compose/variables.ts';

export type VariableScope = 'organization' | 'workspace' | 'project' | 'environment' | 'service';
export type ScopeQuery = Partial<Record<`${VariableScope}Id`, string>>;

export interface Variable {
  id: string;
  organizationId: string | null;
  workspaceId: string | null;
  projectId: string | null;
  environmentId: string | null;
  serviceId: string | null;
  hostingId: string | null;
  serverId: string | null;
  /** Set on rows a binding owns: read-only. */
  bindingId: string | null;
  key: string;
  /** Null for secrets: write-only. */
  value: string | null;
  isSecret: boolean;
  isLiteral: boolean;
  forBuild: boolean;
  forRuntime: boolean;
  description: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface VariableSettings {
  value?: string;
  isSecret?: boolean;
  generate?: boolean;
  isLiteral?: boolean;
  forBuild?: boolean;
  forRuntime?: boolean;
  description?: string | null;
}

export type WrittenVariable = Variable & { generatedValue?: string };

export interface Server {
  id: string;
  organizationId: string;
  name: string;
  hostname: string | null;
  machineId: string | null;
  isLocal: boolean;
  status: 'connected' | 'disconnected' | string;
  lastSeenAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** GET /servers/this-machine: Panel's own host as the organization's local server. */
export interface ThisMachine {
  applies: boolean;
  serverId: string | null;
  name: string | null;
  state: 'connected' | 'connecting' | 'external' | 'checking' | 'no_engine' | 'running' | 'restarting' | 'refused';
  problem: string | null;
  fix: string | null;
}

export interface CreatedJoinToken {
  id: string;
  state: 'active' | 'used' | 'expired';
  expiresAt: string;
  token: string;
  /** One line: install the daemon from this Panel (checksum verified) and join. */
  command: string;
  /** `panel daemon join …`, for a server that has the executable. */
  joinCommand: string;
  /** What keeps other machines from using the command (a loopback public URL). */
  warnings: string[];
}

export interface Service {
  id: string;
  environmentId: string;
  name: string;
  description: string | null;
  composeServiceName: string;
}

export interface Deployment {
  id: string;
  environmentId: string;
  serverId: string | null;
  kind: 'deploy' | 'stop' | 'destroy' | string;
  desiredGeneration: number;
  status: string;
  error: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ContainerRow {
  id: string;
  serviceId: string;
  serverId: string;
  containerId: string | null;
  containerName: string;
  status: string;
  /** The container no longer exists on its server; `status` is the last state it had. */
  isRemoved: boolean;
  role: string;
  composeServiceName: string;
  ordinal: number;
  updatedAt: string;
}

/** A resolved variable with its provenance, exactly as src/compose/variables.ts produces it. */
export type ResolvedEntry = ResolvedVariable;

export interface DeployPreview {
  server: { id: string; name: string };
  blocks: { serverId: string; yaml: string; containers: { containerName: string; composeServiceName: string }[]; secrets: { name: string; key: string }[] }[];
  variables: { serviceId: string; composeServiceName: string; entries: ResolvedEntry[] }[];
  warnings: string[];
}

export const deployApi = {
  variables: {
    list: (query: ScopeQuery & { cursor?: string }) => call<Page<Variable>>('GET', 'client/v1/variables', undefined, query),
    create: (input: ScopeQuery & VariableSettings & { key: string }) => call<WrittenVariable>('POST', 'client/v1/variables', input),
    update: (id: string, changes: VariableSettings) => call<WrittenVariable>('PATCH', `client/v1/variables/${id}`, changes),
    remove: (id: string) => call<void>('DELETE', `client/v1/variables/${id}`),
  },
  servers: {
    list: (query: { organizationId: string; cursor?: string }) => call<Page<Server>>('GET', 'client/v1/servers', undefined, query),
    rename: (id: string, name: string) => call<Server>('PATCH', `client/v1/servers/${id}`, { name }),
    remove: (id: string) => call<void>('DELETE', `client/v1/servers/${id}`),
    thisMachine: (organizationId: string) => call<ThisMachine>('GET', 'client/v1/servers/this-machine', undefined, { organizationId }),
  },
  joinTokens: {
    create: (input: { organizationId: string; name?: string; expiresInSeconds?: number }) => call<CreatedJoinToken>('POST', 'client/v1/join-tokens', input),
  },
  services: {
    list: (query: { environmentId: string; cursor?: string }) => call<Page<Service>>('GET', 'client/v1/services', undefined, query),
    get: (id: string) => call<Service>('GET', `client/v1/services/${id}`),
  },
  environments: {
    get: (id: string) => call<Environment>('GET', `client/v1/environments/${id}`),
    pin: (id: string, serverId: string | null) => call<Environment>('PATCH', `client/v1/environments/${id}`, { serverId }),
    preview: (id: string) => call<DeployPreview>('GET', `client/v1/environments/${id}/deploy-preview`),
    deploy: (id: string) => call<Deployment & { warnings: string[] }>('POST', `client/v1/environments/${id}/deploy`, {}),
    stop: (id: string) => call<Deployment>('POST', `client/v1/environments/${id}/stop`),
    destroy: (id: string) => call<Deployment>('POST', `client/v1/environments/${id}/destroy`),
  },
  projects: {
    setDefaultServer: (project: Project, defaultServerId: string | null) => {
      // Options are written whole minus compose: without `compose` the stored document is kept.
      const { compose: _compose, ...rest } = project.options ?? {};
      return call<Project>('PATCH', `client/v1/projects/${project.id}`, { options: { ...rest, defaultServerId } });
    },
  },
};
