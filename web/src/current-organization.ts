/**
 * Which organization the console is looking at. Pages report the organization their resource
 * belongs to, so the shell's switcher and workspace navigation follow deep links.
 */
import { createContext } from 'preact';
import { useContext, useEffect } from 'preact/hooks';

export const CurrentOrganization = createContext<(organizationId: string) => void>(() => {});

/** Called by a page with the organization its resource belongs to (once it is known). */
export function useCurrentOrganization(organizationId: string | undefined): void {
  const setCurrent = useContext(CurrentOrganization);
  useEffect(() => {
    if (organizationId) setCurrent(organizationId);
  }, [organizationId]);
}
