/**
 * The variables part of a service page: the service's own rows, the ones it inherits (with
 * where each comes from), and, when the environment can be previewed, the authoritative
 * resolution a deploy would use (deploy-preview provenance, secrets masked).
 */
import { api } from '../api.ts';
import { LoadFailed, Loading, useResource } from '../data.tsx';
import { deployApi } from '../deploy-api.ts';
import { PlacementRequired, ProvenanceTable } from '../environment/deploy-preview.tsx';
import { projectAncestors } from '../pages/environment.tsx';
import { VariablesSection } from './variables-section.tsx';

const pending = () => new Promise<never>(() => {});

export function ServiceVariables({ serviceId, serviceName, environmentId }: { serviceId: string; serviceName: string; environmentId: string }) {
  const environment = useResource(`environment:${environmentId}`, () => deployApi.environments.get(environmentId));
  const projectId = environment.data?.projectId;
  const project = useResource(`project:${projectId ?? ''}`, () => (projectId ? api.projects.get(projectId) : pending()));
  const preview = useResource(`preview:${environmentId}`, () => deployApi.environments.preview(environmentId));

  const failed = environment.error ?? project.error;
  if (failed) return <LoadFailed error={failed} what="the service's variables" retry={environment.reload} />;
  if (!environment.data || !project.data) return <Loading what="the service's variables" />;
  const environmentName = environment.data.name ?? 'Unnamed environment';
  const resolved = preview.data?.variables.find((entry) => entry.serviceId === serviceId);
  return (
    <>
      <VariablesSection
        organizationId={project.data.organizationId}
        scope={{ scope: 'service', id: serviceId, label: `service ${serviceName}` }}
        ancestors={[...projectAncestors(project.data), { scope: 'environment', id: environmentId, label: `environment ${environmentName}`, href: `/environments/${environmentId}` }]}
      />
      <section aria-labelledby="resolved-heading">
        <h2 id="resolved-heading">Resolved at deploy</h2>
        <p class="muted">What the next deploy would deliver to this service, and which scope each value comes from.</p>
        {preview.error?.code === 'server_placement_required' ? (
          <PlacementRequired organizationId={project.data.organizationId} />
        ) : preview.error ? (
          <LoadFailed error={preview.error} what="the resolved variables" retry={preview.reload} />
        ) : !preview.data ? (
          <Loading what="the resolved variables" />
        ) : (
          <ProvenanceTable label={serviceName} entries={resolved?.entries ?? []} />
        )}
      </section>
    </>
  );
}
