/**
 * Typed calls for variables, servers, join tokens, services and deploys (client API v1). Kept
 * beside api.ts, whose `call` does the transport and error mapping.
 */
import { call, type Environment, type Page, type Project } from './api.ts';
import type { Container } from '../../src/contract/containers.ts';
import type { Deployed, Deployment, DeployPreview } from '../../src/contract/deployments.ts';
import type { Server, ThisMachine } from '../../src/contract/servers.ts';
import type { Service } from '../../src/contract/services.ts';
import type { CreatedJoinToken, JoinTokenCreate } from '../../src/contract/tokens.ts';
import type { Variable, VariableCreate, VariableUpdate, WrittenVariable } from '../../src/contract/variables.ts';

export type { Container, CreatedJoinToken, Deployment, DeployPreview, Server, Service, ThisMachine, Variable, WrittenVariable };

/** The scopes the console edits variables at. */
export type VariableScope = 'organization' | 'workspace' | 'project' | 'environment' | 'service';
export type ScopeQuery = Partial<Record<`${VariableScope}Id`, string>>;
export type VariableSettings = VariableUpdate;
/** A resolved variable with its provenance, as the deploy preview answers it. */
export type ResolvedEntry = DeployPreview['variables'][number]['entries'][number];

export const deployApi = {
  variables: {
    list: (query: ScopeQuery & { cursor?: string }) => call<Page<Variable>>('GET', 'client/v1/variables', undefined, query),
    create: (input: VariableCreate) => call<WrittenVariable>('POST', 'client/v1/variables', input),
    update: (id: string, changes: VariableUpdate) => call<WrittenVariable>('PATCH', `client/v1/variables/${id}`, changes),
    remove: (id: string) => call<void>('DELETE', `client/v1/variables/${id}`),
  },
  servers: {
    list: (query: { organizationId: string; cursor?: string }) => call<Page<Server>>('GET', 'client/v1/servers', undefined, query),
    rename: (id: string, name: string) => call<Server>('PATCH', `client/v1/servers/${id}`, { name }),
    /** Replaces the whole label set. */
    setLabels: (id: string, labels: Record<string, string>) => call<Server>('PATCH', `client/v1/servers/${id}`, { labels }),
    /** Where the overlay fabric reaches the server; null clears a setting. */
    setReach: (id: string, reach: { fabricEndpoint?: string | null; datacenter?: string | null }) => call<Server>('PATCH', `client/v1/servers/${id}`, reach),
    /** Where tcp/udp hostings with bind datacenter publish; null clears it. */
    setPrivateAddress: (id: string, privateAddress: string | null) => call<Server>('PATCH', `client/v1/servers/${id}`, { privateAddress }),
    remove: (id: string) => call<void>('DELETE', `client/v1/servers/${id}`),
    thisMachine: (organizationId: string) => call<ThisMachine>('GET', 'client/v1/servers/this-machine', undefined, { organizationId }),
  },
  joinTokens: {
    /** With `replacesServerId`, the enrollment takes over that server (how an enrolled machine joins again). */
    create: (input: JoinTokenCreate) => call<CreatedJoinToken>('POST', 'client/v1/join-tokens', input),
  },
  services: {
    list: (query: { environmentId: string; cursor?: string }) => call<Page<Service>>('GET', 'client/v1/services', undefined, query),
    get: (id: string) => call<Service>('GET', `client/v1/services/${id}`),
  },
  environments: {
    get: (id: string) => call<Environment>('GET', `client/v1/environments/${id}`),
    pin: (id: string, serverId: string | null) => call<Environment>('PATCH', `client/v1/environments/${id}`, { serverId }),
    preview: (id: string) => call<DeployPreview>('GET', `client/v1/environments/${id}/deploy-preview`),
    deploy: (id: string) => call<Deployed>('POST', `client/v1/environments/${id}/deploy`, {}),
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
