/**
 * What a third-party client does with types generated from Panel's live API description
 * (`openapi-typescript`) and `openapi-fetch`: create a project, save its Compose file, pin the
 * environment to a server, deploy with no body, read the containers. test/openapi-client.test.ts
 * generates generated/panel.d.ts, type-checks this file against it (TypeScript 5, which
 * openapi-typescript needs) and runs it against a running Panel. Nothing here is cast: if the
 * description and the answers disagree, this stops compiling or the test fails.
 */
import createClient from 'openapi-fetch';
import type { paths } from './generated/panel';

export interface JourneyInput {
  baseUrl: string;
  apiToken: string;
  organizationId: string;
  serverId: string;
  compose: string;
}

function answered<T>(what: string, result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined) throw new Error(`${what}: ${result.response.status} ${JSON.stringify(result.error)}`);
  return result.data;
}

export async function journey({ baseUrl, apiToken, organizationId, serverId, compose }: JourneyInput) {
  const client = createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${apiToken}` } });

  const workspaces = answered('list workspaces', await client.GET('/api/client/v1/workspaces', { params: { query: { organizationId } } }));
  const workspaceId = workspaces.data.find((workspace) => workspace.kind === 'user')!.id;
  const project = answered('create project', await client.POST('/api/client/v1/projects', { body: { workspaceId, name: 'typed-client' } }));
  const saved = answered('save compose', await client.PUT('/api/client/v1/projects/{id}/compose', { params: { path: { id: project.id } }, body: { yaml: compose } }));

  const environments = answered('list environments', await client.GET('/api/client/v1/environments', { params: { query: { projectId: project.id } } }));
  const environmentId = environments.data[0]!.id;
  answered('pin the environment', await client.PATCH('/api/client/v1/environments/{id}', { params: { path: { id: environmentId } }, body: { serverId } }));

  // No body: the description says it is optional, so the generated client does not ask for one.
  const deployment = answered('deploy', await client.POST('/api/client/v1/environments/{id}/deploy', { params: { path: { id: environmentId } } }));
  const containers = answered('list containers', await client.GET('/api/client/v1/containers', { params: { query: { serverId } } }));

  return { project, saved, environmentId, deployment, containers: containers.data };
}
