/**
 * Code that is loaded when first needed: the bundle is split (Bun's `splitting`), and every
 * `import()` here becomes a chunk of its own, so the sign-in and install pages never wait for the
 * signed-in pages, CodeMirror or the QR encoder.
 */
import type { ComponentType, FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Loading } from './data.tsx';

export interface LazyComponent<P> extends FunctionComponent<P> {
  /** Starts the download early; a failure is shown once the component is rendered. */
  preload(): void;
}

/**
 * A component whose code is `load()`ed on first render (once per visit; a failed load, such as a
 * chunk gone after an upgrade, is tried again next time). `what` names it in the loading state.
 */
export function lazyComponent<P extends object>(load: () => Promise<ComponentType<P>>, what: string): LazyComponent<P> {
  let loaded: ComponentType<P> | undefined;
  let loading: Promise<ComponentType<P>> | undefined;
  const start = () => {
    loading ??= load().then(
      (component) => (loaded = component),
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    );
    return loading;
  };

  function Lazy(props: P) {
    const [, setReady] = useState(0);
    const [failed, setFailed] = useState(false);
    useEffect(() => {
      if (loaded) return;
      let live = true;
      start().then(
        () => live && setReady((n) => n + 1),
        () => live && setFailed(true),
      );
      return () => {
        live = false;
      };
    }, []);
    if (loaded) {
      const Component = loaded;
      return <Component {...props} />;
    }
    if (failed) return <LoadCodeFailed what={what} />;
    return <Loading what={what} />;
  }
  return Object.assign(Lazy, { preload: () => void start().catch(() => {}) });
}

/** Runs `work` once the browser is idle (Safari has no requestIdleCallback); answers the cancel. */
export function whenIdle(work: () => void): () => void {
  if (!('requestIdleCallback' in window)) {
    const timer = setTimeout(work, 2000);
    return () => clearTimeout(timer);
  }
  const idle = requestIdleCallback(work);
  return () => cancelIdleCallback(idle);
}

function LoadCodeFailed({ what }: { what: string }) {
  return (
    <div class="alert" role="alert">
      <p>Could not load {what}. Panel may have been upgraded meanwhile.</p>
      <button type="button" onClick={() => location.reload()}>
        Reload the console
      </button>
    </div>
  );
}
