/**
 * A CodeMirror 6 YAML editor as a Preact component. Tab is left to the browser (it moves focus
 * out of the editor), the content carries the label, and one problem at a time is shown as a
 * diagnostic at its line. CodeMirror's injected styles carry the page's CSP nonce.
 *
 * With `onChange` the editor owns its text: `value` is only the text it starts with (give it
 * another `key` to load another document). Pushing every re-rendered value back would race the
 * user's typing: an older value arriving after a newer keystroke would replace it, and the two
 * would then overwrite each other for ever. Without `onChange` (a read-only view) it follows `value`.
 */
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { yaml } from '@codemirror/lang-yaml';
import { defaultHighlightStyle, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { type Diagnostic, lintGutter, setDiagnostics } from '@codemirror/lint';
import { EditorState, type Text } from '@codemirror/state';
import { drawSelection, EditorView, highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers } from '@codemirror/view';
import { useEffect, useRef } from 'preact/hooks';
import type { ComposeProblem } from './text.ts';

const cspNonce = document.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content ?? '';

interface YamlEditorProps {
  /** Accessible name of the editing area. */
  label: string;
  /** The text shown; with onChange, only the initial text. */
  value: string;
  onChange?: (text: string) => void;
  readOnly?: boolean;
  problem?: ComposeProblem | null;
  /** Id of the element describing the problem, announced with the editor. */
  describedBy?: string;
}

function diagnosticOf(doc: Text, problem: ComposeProblem): Diagnostic {
  const line = doc.line(Math.min(Math.max(problem.line ?? 1, 1), doc.lines));
  const from = line.from + Math.min(Math.max((problem.column ?? 1) - 1, 0), line.length);
  return { from, to: Math.max(from, line.to), severity: 'error', message: problem.message };
}

export function YamlEditor({ label, value, onChange, readOnly = false, problem, describedBy }: YamlEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const changed = useRef(onChange);
  changed.current = onChange;

  useEffect(() => {
    const editor = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: value,
        extensions: [
          EditorView.cspNonce.of(cspNonce),
          lineNumbers(),
          highlightActiveLineGutter(),
          highlightActiveLine(),
          drawSelection(),
          history(),
          indentOnInput(),
          keymap.of([...defaultKeymap, ...historyKeymap]),
          yaml(),
          syntaxHighlighting(defaultHighlightStyle),
          lintGutter(),
          EditorState.readOnly.of(readOnly),
          EditorView.contentAttributes.of({
            'aria-label': label,
            ...(readOnly ? { 'aria-readonly': 'true' } : {}),
            ...(describedBy ? { 'aria-describedby': describedBy } : {}),
          }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) changed.current?.(update.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = editor;
    return () => editor.destroy();
  }, [label, readOnly, describedBy]);

  useEffect(() => {
    const editor = view.current;
    if (editor && !changed.current && editor.state.doc.toString() !== value) {
      editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } });
    }
  }, [value]);

  useEffect(() => {
    const editor = view.current;
    if (editor) editor.dispatch(setDiagnostics(editor.state, problem?.line ? [diagnosticOf(editor.state.doc, problem)] : []));
  }, [problem, value]);

  return <div class="editor" ref={host} />;
}
