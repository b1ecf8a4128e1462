/**
 * Where the project page shows the Compose editor. The editor is a module of its own (entry.tsx)
 * whose address the server writes into <meta name="panel-editor-module">; it is imported once
 * per visit (or earlier, while the browser is idle), which defines <panel-compose-editor>.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { Loading } from '../data.tsx';
import type { ComposeEditorElement, ComposeSectionProps } from './entry.tsx';

/** Tag of the editor element: defined by the editor module, created here. */
export const COMPOSE_EDITOR_ELEMENT = 'panel-compose-editor';

let editorModule: Promise<unknown> | undefined;

/** Also defines <panel-qr-code> (qr-code-element.ts), used by the account page. */
export function loadComposeEditor(): Promise<unknown> {
  const url = document.querySelector<HTMLMetaElement>('meta[name="panel-editor-module"]')?.content;
  editorModule ??= (url ? import(url) : Promise.reject(new Error('no editor module named'))).catch((error: unknown) => {
    editorModule = undefined; // a later visit tries again
    throw error;
  });
  return editorModule;
}

/** Starts the download early; a failure is shown when the editor is actually needed. */
export function preloadComposeEditor(): void {
  loadComposeEditor().catch(() => {});
}

/** Shows the editor with the props it first gets (the project page keys it by project). */
export function ComposeEditorHost(props: ComposeSectionProps) {
  const host = useRef<HTMLDivElement>(null);
  const [state, setState] = useState<'loading' | 'ready' | 'failed'>('loading');
  useEffect(() => {
    let live = true;
    let element: ComposeEditorElement | undefined;
    loadComposeEditor().then(
      () => {
        if (!live || !host.current) return;
        // Created once the module has defined it, so it is born upgraded with its props.
        element = document.createElement(COMPOSE_EDITOR_ELEMENT) as ComposeEditorElement;
        element.props = props;
        host.current.replaceChildren(element);
        setState('ready');
      },
      () => live && setState('failed'),
    );
    return () => {
      live = false;
      element?.remove();
    };
  }, []);
  return (
    <>
      {state === 'loading' && <Loading what="the Compose editor" />}
      {state === 'failed' && (
        <div class="alert" role="alert">
          <p>Could not load the Compose editor. Panel may have been upgraded meanwhile.</p>
          <button type="button" onClick={() => location.reload()}>
            Reload the console
          </button>
        </div>
      )}
      <div ref={host} />
    </>
  );
}
