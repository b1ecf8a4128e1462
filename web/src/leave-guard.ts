/**
 * Leaving unsaved work asks first. A component holding work the server does not have yet (the
 * Compose editor) says so with useLeaveGuard; while it does, navigating inside the console (links,
 * Back and Forward, the organization switcher, signing out) waits for the LeaveDialog's answer,
 * and closing or reloading the tab gets the browser's own question (beforeunload). The router
 * uses this module on every page, so the dialog itself lives apart (leave-dialog.tsx).
 */
import { useEffect, useRef, useState } from 'preact/hooks';

/** Each registered guard: what would be lost, or null while nothing would. */
const guards = new Set<{ unsaved: string | null }>();
const listeners = new Set<() => void>();
let pending: (() => void) | null = null;

function setPending(leave: (() => void) | null): void {
  pending = leave;
  for (const listener of listeners) listener();
}

/** What leaving now would lose, one line per guard that holds something. */
export const unsavedWork = (): string[] => [...guards].flatMap((guard) => (guard.unsaved ? [guard.unsaved] : []));

/** Runs `leave` now when nothing would be lost, else once the user chooses to leave anyway. */
export function leaveThen(leave: () => void): void {
  if (unsavedWork().length === 0) leave();
  else setPending(leave);
}

window.addEventListener('beforeunload', (event) => {
  if (unsavedWork().length === 0) return;
  // The browser asks in its own words: pages can no longer set the text.
  event.preventDefault();
  event.returnValue = '';
});

/** While `unsaved` is a sentence (what would be lost), leaving the page asks first. */
export function useLeaveGuard(unsaved: string | null): void {
  const guard = useRef({ unsaved });
  guard.current.unsaved = unsaved;
  useEffect(() => {
    const current = guard.current;
    guards.add(current);
    return () => void guards.delete(current);
  }, []);
}

/**
 * The leave waiting for the user's answer (null when none), and the call that drops it. A late
 * dismissal (a closed dialog's close event arrives after its unmount) drops only its own leave,
 * never one asked for since.
 */
export function usePendingLeave(): [leave: (() => void) | null, dismiss: () => void] {
  const [leave, setLeave] = useState(() => pending);
  useEffect(() => {
    const update = () => setLeave(() => pending);
    listeners.add(update);
    return () => void listeners.delete(update);
  }, []);
  return [leave, () => pending === leave && setPending(null)];
}
