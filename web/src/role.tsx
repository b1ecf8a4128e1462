/**
 * The caller's role in each organization, read from the session summary the shell holds. The
 * API lets members read, admins and owners write, and only owners manage members; pages ask
 * `useOrganizationRole(organizationId)` (or `useCanWrite`) and leave out the write controls a
 * member would only get a 403 for, saying so with `ReadOnlyNote`. Signed in with an API token,
 * the session carries the token's own role. A 403 from the API (a demotion since the session was
 * read) makes the shell read the session again.
 */
import { createContext } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';
import { ACCESS_REFUSED_EVENT, api, type SessionSummary } from './api.ts';
import { hasRole, type Role } from './organization-api.ts';

export interface SessionState {
  session: SessionSummary;
  /** Loads the session again, after the caller's own role changed. */
  refresh: () => void;
}

/** Provided by the shell; without it nothing is writable. */
export const SessionContext = createContext<SessionState | null>(null);

/** For the shell: the session the app found, replaced by a fresher one after `refresh()`. */
export function useSessionState(given: SessionSummary): SessionState {
  const [fresh, setFresh] = useState<SessionSummary | null>(null);
  useEffect(() => setFresh(null), [given]);
  // A failed refresh keeps the known session: an ended one is handled by api.ts (401 event).
  const refresh = () => void api.auth.session().then(setFresh, () => {});
  useEffect(() => {
    window.addEventListener(ACCESS_REFUSED_EVENT, refresh);
    return () => window.removeEventListener(ACCESS_REFUSED_EVENT, refresh);
  }, []);
  return { session: fresh ?? given, refresh };
}

export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSession is used outside the signed-in shell');
  return state;
}

/** The caller's role in the organization; undefined while the organization is not known yet. */
export function useOrganizationRole(organizationId: string | undefined): Role | undefined {
  const state = useContext(SessionContext);
  if (!organizationId) return undefined;
  return state?.session.memberships.find((membership) => membership.organizationId === organizationId)?.role;
}

/** Admins and owners change an organization's resources; members only read them. */
export const canWrite = (role: Role | undefined): boolean => hasRole(role, 'admin');

export const useCanWrite = (organizationId: string | undefined): boolean => canWrite(useOrganizationRole(organizationId));

/** Stands in for the controls a member may not use: "Only admins and owners of this organization can <action>." */
export function ReadOnlyNote({ action = 'change this', id }: { action?: string; id?: string }) {
  return (
    <p class="muted" id={id}>
      Only admins and owners of this organization can {action}.
    </p>
  );
}
