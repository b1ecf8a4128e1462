/**
 * Typed calls that shape the resource tree (client API v1): create, rename or describe, and
 * delete workspaces, projects and environments. Also the "structure changed" signal that lets
 * navigation elsewhere on screen (the shell's workspace list) follow a create, rename or delete
 * without a reload.
 */
import { useEffect, useRef } from 'preact/hooks';
import { call, type Environment, type Project, type Workspace } from './api.ts';
import { clientProjectTypes } from '../../src/contract/enums.ts';

const V1 = 'client/v1';

/** What the console's settings forms change on all three: null clears the description. */
export interface NameAndDescription {
  name?: string | null;
  description?: string | null;
}

/** The name rules the API checks, as the forms show them. */
export const NAME_HINTS = {
  workspace: 'Letters, digits, spaces and . _ -',
  project: 'Unique in the organization.',
  environment: 'Letters, digits, spaces and . _ / -',
} as const;

/** `metadata.type` a client may choose for a project (`system` is the platform's own). */
export { clientProjectTypes as PROJECT_TYPES };
export type ProjectType = (typeof clientProjectTypes)[number];

export const structureApi = {
  workspaces: {
    create: (input: NameAndDescription & { organizationId: string }) => call<Workspace>('POST', `${V1}/workspaces`, input),
    update: (id: string, changes: NameAndDescription) => call<Workspace>('PATCH', `${V1}/workspaces/${id}`, changes),
    remove: (id: string) => call<void>('DELETE', `${V1}/workspaces/${id}`),
  },
  projects: {
    /** The API creates the project's first environment with it. */
    create: (input: NameAndDescription & { workspaceId: string; metadata?: { type: ProjectType } }) =>
      call<Project>('POST', `${V1}/projects`, input),
    update: (id: string, changes: NameAndDescription) => call<Project>('PATCH', `${V1}/projects/${id}`, changes),
    remove: (id: string) => call<void>('DELETE', `${V1}/projects/${id}`),
  },
  environments: {
    create: (input: NameAndDescription & { projectId: string }) => call<Environment>('POST', `${V1}/environments`, input),
    update: (id: string, changes: NameAndDescription) => call<Environment>('PATCH', `${V1}/environments/${id}`, changes),
    remove: (id: string) => call<void>('DELETE', `${V1}/environments/${id}`),
  },
};

export type StructureKind = 'workspace' | 'project' | 'environment';

const STRUCTURE_CHANGED_EVENT = 'panel:structure-changed';

/** Tells every listener for `kind` (the shell's workspace list) to load its list again. */
export function announceStructureChanged(kind: StructureKind): void {
  window.dispatchEvent(new CustomEvent(STRUCTURE_CHANGED_EVENT, { detail: kind }));
}

/** Calls the latest `listener` whenever an entity of `kind` is created, renamed or deleted. */
export function useStructureChanged(kind: StructureKind, listener: () => void): void {
  const latest = useRef(listener);
  latest.current = listener;
  useEffect(() => {
    const handle = (event: Event) => {
      if ((event as CustomEvent<StructureKind>).detail === kind) latest.current();
    };
    window.addEventListener(STRUCTURE_CHANGED_EVENT, handle);
    return () => window.removeEventListener(STRUCTURE_CHANGED_EVENT, handle);
  }, [kind]);
}
