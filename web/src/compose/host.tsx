/**
 * Where the project page shows the Compose editor. CodeMirror, the YAML parser and the merge are
 * a chunk of their own (lazy.tsx), fetched on first use or while the browser is idle.
 */
import { lazyComponent } from '../lazy.tsx';

export const ComposeEditorHost = lazyComponent(() => import('./compose-section.tsx').then((module) => module.ComposeSection), 'the Compose editor');
