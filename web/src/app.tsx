/**
 * The console's root: finds out whether Panel is installed and who is signed in, then shows the
 * install wizard, the sign-in page or the signed-in shell (an invitation link opens its
 * acceptance page signed in or out). Once the first of those is on screen it sets the app-ready
 * marker (performance mark `panel:app-ready`, html[data-app-ready]) that the browser tests and
 * scripts/bench/console.ts wait for.
 */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, ApiError, SESSION_ENDED_EVENT, type SessionSummary } from './api.ts';
import { InstallPage } from './pages/install.tsx';
import { SignInPage } from './pages/sign-in.tsx';
import { navigate, usePageTitle, usePath } from './router.tsx';
import { lazyComponent, whenIdle } from './lazy.tsx';

export type AppState =
  | { kind: 'install'; methods: ('token' | 'host')[] }
  | { kind: 'signed-out' }
  | { kind: 'signed-in'; session: SessionSummary }
  | { kind: 'unreachable'; error: ApiError };

/** Both questions at once: the install status (404 in development, 410 once installed) and the session. */
export async function discover(): Promise<AppState> {
  const [install, session] = await Promise.allSettled([api.install.status(), api.auth.session()]);
  if (install.status === 'fulfilled' && !install.value.installed) return { kind: 'install', methods: install.value.methods };
  if (session.status === 'fulfilled') return { kind: 'signed-in', session: session.value };
  const error: unknown = session.reason;
  if (error instanceof ApiError && error.code === 'unauthenticated') return { kind: 'signed-out' };
  return { kind: 'unreachable', error: error instanceof ApiError ? error : new ApiError(0, 'console_error', String(error)) };
}

function markReady(): void {
  if (document.documentElement.dataset.appReady) return;
  document.documentElement.dataset.appReady = 'true';
  performance.mark('panel:app-ready');
}

/** The signed-in pages are a chunk of their own: sign-in and install never wait for them. */
const Shell = lazyComponent(() => import('./shell.tsx').then((module) => module.Shell), 'your organizations');

const ENTRY_PATHS = new Set(['/install', '/sign-in']);

/** Opened from an invitation link, signed in or out: a chunk of its own too. */
const ACCEPT_INVITATION_PATH = '/invitations/accept';
const AcceptInvitation = lazyComponent(() => import('./pages/accept-invitation.tsx').then((module) => module.AcceptInvitationPage), 'the invitation');

/**
 * `firstState` is what discover() answered before the first render (main.tsx), so the first
 * render is the page itself; until then web/index.html shows its own loading line.
 */
export function App({ firstState }: { firstState: AppState }) {
  const [state, setState] = useState<AppState>(firstState);
  const refresh = useCallback(() => void discover().then(setState), []);
  const path = usePath();

  useEffect(() => {
    const ended = () => setState({ kind: 'signed-out' });
    window.addEventListener(SESSION_ENDED_EVENT, ended);
    return () => window.removeEventListener(SESSION_ENDED_EVENT, ended);
  }, []);
  useEffect(() => {
    markReady();
    // Whoever signs in next needs the signed-in pages: fetch them once the page is idle.
    if (state.kind === 'signed-out' || state.kind === 'install') return whenIdle(Shell.preload);
    if (state.kind === 'signed-in' && ENTRY_PATHS.has(location.pathname)) navigate('/', { replace: true });
  }, [state.kind]);

  if (path === ACCEPT_INVITATION_PATH && (state.kind === 'signed-in' || state.kind === 'signed-out')) {
    const accepted = async (organizationId: string) => {
      const next = await discover();
      navigate(`/organizations/${organizationId}`, { replace: true });
      setState(next);
    };
    return (
      <AcceptInvitation
        session={state.kind === 'signed-in' ? state.session : null}
        onAccepted={accepted}
        onSignedIn={refresh}
        onSignedOut={() => setState({ kind: 'signed-out' })}
      />
    );
  }

  switch (state.kind) {
    case 'install': {
      const installed = (organizationId: string) => {
        navigate(`/organizations/${organizationId}`, { replace: true });
        refresh();
      };
      return <InstallPage methods={state.methods} onInstalled={installed} />;
    }
    case 'signed-out':
      return <SignInPage onSignedIn={refresh} />;
    case 'unreachable':
      return <Unreachable error={state.error} retry={refresh} />;
    case 'signed-in': {
      const signedOut = () => {
        setState({ kind: 'signed-out' });
        navigate('/sign-in', { discardUnsaved: true });
      };
      return <Shell session={state.session} onSignedOut={signedOut} />;
    }
  }
}

function Unreachable({ error, retry }: { error: ApiError; retry: () => void }) {
  usePageTitle('Cannot reach Panel');
  return (
    <main id="main" class="centered">
      <h1 tabIndex={-1}>Panel cannot be reached</h1>
      <div class="alert" role="alert">
        <p>{error.message}</p>
        {error.requestId && <p class="muted">Request id: {error.requestId}</p>}
      </div>
      <button type="button" onClick={retry}>
        Try again
      </button>
    </main>
  );
}
