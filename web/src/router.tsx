/**
 * A small history-API router: paths are real URLs (the server answers every non-API path with
 * the console), links navigate without reloading, and after a navigation focus moves to the new
 * page's heading so keyboard and screen-reader users land on it. A navigation away from unsaved
 * work asks first (leave-guard.ts).
 */
import type { AnchorHTMLAttributes, ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { leaveThen, unsavedWork } from './leave-guard.ts';

const listeners = new Set<() => void>();
let navigatedInApp = false;

function notify(): void {
  navigatedInApp = true;
  for (const listener of listeners) listener();
}

/**
 * Each history entry the console makes carries its position, so a Back or Forward that would
 * leave unsaved work can be undone (history.go the other way) while the user is asked.
 */
const indexOf = (state: unknown): number => {
  const index = (state as { panelIndex?: unknown } | null)?.panelIndex;
  return typeof index === 'number' ? index : 0;
};
let shownIndex = indexOf(history.state);
/** What the next popstate is: the undo of a Back or Forward being asked about, or the move the user confirmed. */
let expected: 'undo' | 'confirmed' | null = null;

window.addEventListener('popstate', (event) => {
  const index = indexOf(event.state);
  const delta = index - shownIndex;
  if (expected === 'undo') {
    expected = null; // back on the page being left; it stays on screen while the user is asked
    return;
  }
  if (expected === 'confirmed' || delta === 0 || unsavedWork().length === 0) {
    expected = null;
    shownIndex = index;
    notify();
    return;
  }
  expected = 'undo';
  history.go(-delta);
  leaveThen(() => {
    expected = 'confirmed';
    history.go(delta);
  });
});

/**
 * Shows `to`. When the page holds unsaved work (leave-guard.ts) the user is asked first, unless
 * `discardUnsaved` says it no longer matters (the session ended, the resource was deleted).
 */
export function navigate(to: string, options: { replace?: boolean; discardUnsaved?: boolean } = {}): void {
  if (to === location.pathname + location.search) return;
  const go = () => {
    if (options.replace) history.replaceState({ panelIndex: shownIndex }, '', to);
    else history.pushState({ panelIndex: ++shownIndex }, '', to);
    notify();
  };
  if (options.discardUnsaved) go();
  else leaveThen(go);
}

/** The current path; re-renders the caller on every navigation. */
export function usePath(): string {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const update = () => setPath(location.pathname);
    listeners.add(update);
    return () => listeners.delete(update);
  }, []);
  return path;
}

/** Matches '/projects/:id' style patterns; answers the named segments or null. */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/');
  const have = path.replace(/\/+$/, '').split('/');
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (const [index, segment] of want.entries()) {
    const actual = have[index]!;
    if (segment.startsWith(':')) params[segment.slice(1)] = decodeURIComponent(actual);
    else if (segment !== actual) return null;
  }
  return params;
}

type LinkProps = AnchorHTMLAttributes<HTMLAnchorElement> & { href: string; children: ComponentChildren };

export function Link({ href, children, ...rest }: LinkProps) {
  const onClick = (event: MouseEvent) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  };
  return (
    <a href={href} onClick={onClick} {...rest}>
      {children}
    </a>
  );
}

/**
 * Someone working inside the page (a field or button of main has focus, as after a rename) keeps
 * their focus when the title changes; a navigation removes what was clicked, or it was outside.
 */
function isWorkingInPage(): boolean {
  const active = document.activeElement;
  return active instanceof HTMLElement && active.tagName !== 'H1' && active.tagName !== 'MAIN' && active.closest('main') !== null;
}

/**
 * Sets the document title; after an in-app navigation also moves focus to the page's <h1>
 * (which carries tabIndex -1). The first page load keeps the browser's own focus.
 */
export function usePageTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Panel`;
    if (navigatedInApp && !isWorkingInPage()) document.querySelector<HTMLElement>('main h1')?.focus();
  }, [title]);
}
