/**
 * A project's Compose documents: the base (project.options.compose) and one overlay per
 * environment (environment.options.compose), edited as YAML, with the read-only merged preview
 * of base + the chosen environment's overlay beside the editor. Syntax errors show at their line
 * while typing; the server's validation errors show at their line after a save. The view
 * (editor alone, or editor and preview) is kept in the document as presentation.editorView.
 * A platform project's documents, and every document for a member of the organization, are
 * read-only. Leaving the page with a document changed and not saved asks first.
 */
import { useMemo, useState } from 'preact/hooks';
import { api, ApiError, type Environment, type Project } from '../api.ts';
import { FormAlert, type FormProblem, SubmitButton } from '../forms.tsx';
import { useLeaveGuard } from '../leave-guard.ts';
import { ReadOnlyNote, useCanWrite } from '../role.tsx';
import { YamlEditor } from './editor.tsx';
import { type ComposeProblem, mergedPreview, parseText, placeOf, textOf } from './text.ts';

type EditorViewPreference = 'split' | 'yaml';
const BASE = 'base';

/** What the server holds: the text per document key ('base' or an environment id). */
type Saved = Record<string, string>;

function initialSaved(project: Project, environments: Environment[]): Saved {
  const texts: Saved = { [BASE]: textOf(project.options?.compose) };
  for (const environment of environments) texts[environment.id] = textOf(environment.options?.compose);
  return texts;
}

const describeProblem = (problem: ComposeProblem) =>
  problem.line ? `Line ${problem.line}, column ${problem.column ?? 1}: ${problem.message}` : problem.message;

const isComposeError = (error: ApiError) =>
  error.code === 'compose_invalid' || (error.code === 'validation_failed' && (error.path ?? '').startsWith('options.compose'));

export function ComposeSection({ project, environments }: { project: Project; environments: Environment[] }) {
  const [saved, setSaved] = useState(() => initialSaved(project, environments));
  const [drafts, setDrafts] = useState<Record<string, string>>({});
  const [target, setTarget] = useState<string>(BASE);
  const [environmentId, setEnvironmentId] = useState(environments[0]?.id);
  const [view, setView] = useState<EditorViewPreference>(project.options?.compose?.presentation.editorView === 'yaml' ? 'yaml' : 'split');
  const [serverProblem, setServerProblem] = useState<(ComposeProblem & { text: string }) | null>(null);
  const [failure, setFailure] = useState<FormProblem | null>(null);
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState('');

  const environment = environments.find((candidate) => candidate.id === environmentId);
  const documentKey = target === BASE || !environment ? BASE : environment.id;
  const textFor = (key: string) => drafts[key] ?? saved[key] ?? '';
  const text = textFor(documentKey);
  const dirty = text !== saved[documentKey];
  const isPlatform = project.component !== null;
  const writable = useCanWrite(project.organizationId);
  const readOnly = isPlatform || !writable;

  const unsaved = Object.keys(drafts).filter((key) => drafts[key] !== saved[key]);
  const documentName = (key: string) => (key === BASE ? 'the project base' : `the overlay of ${environments.find((candidate) => candidate.id === key)?.name ?? 'an environment'}`);
  useLeaveGuard(unsaved.length > 0 && !readOnly ? `The Compose file of ${project.name ?? 'this project'} has changes that are not saved: ${unsaved.map(documentName).join(' and ')}.` : null);

  const parsed = useMemo(() => parseText(text, view), [text, view]);
  const problem = parsed.problem ?? (serverProblem?.text === text ? serverProblem : null);
  const preview = useMemo(
    () => (view === 'split' ? mergedPreview(textFor(BASE), environment ? textFor(environment.id) : '') : null),
    [view, drafts, saved, environment?.id],
  );

  const edit = (next: string) => {
    setDrafts((previous) => ({ ...previous, [documentKey]: next }));
    setStatus('');
  };

  const save = async (event: Event) => {
    event.preventDefault();
    if (busy || readOnly) return;
    setFailure(null);
    if (!parsed.document) {
      setStatus(`Not saved: ${describeProblem(parsed.problem)}`);
      return;
    }
    setBusy(true);
    setStatus('Saving…');
    try {
      // The compose endpoint changes only this layer: other options (the default server) stay.
      const layer = documentKey === BASE ? { kind: 'projects' as const, id: project.id } : { kind: 'environments' as const, id: documentKey };
      const stored = await api.compose.save(layer.kind, layer.id, { yaml: text, editorView: view });
      setSaved((previous) => ({ ...previous, [documentKey]: stored.yaml }));
      setDrafts(({ [documentKey]: _saved, ...others }) => others);
      setServerProblem(null);
      setStatus('Saved.');
    } catch (error) {
      if (error instanceof ApiError && isComposeError(error)) {
        const placed = { message: error.message, ...placeOf(text, error.message, error.path) };
        setServerProblem({ text, ...placed });
        setStatus(`Not saved: ${describeProblem(placed)}`);
      } else {
        setStatus('');
        setFailure(error instanceof ApiError ? { message: error.message, requestId: error.requestId } : { message: String(error) });
      }
    } finally {
      setBusy(false);
    }
  };

  const editorLabel = documentKey === BASE ? 'Project base Compose file' : `Overlay for environment ${environment?.name ?? ''}`;
  return (
    <section aria-labelledby="compose-heading" class="compose">
      <h2 id="compose-heading">Compose</h2>
      <div class="toolbar">
        {environments.length > 0 && (
          <div class="field inline">
            <label for="compose-environment">Environment</label>
            <select id="compose-environment" value={environmentId} onChange={(event) => setEnvironmentId(event.currentTarget.value)}>
              {environments.map((candidate) => (
                <option key={candidate.id} value={candidate.id}>
                  {candidate.name ?? 'Unnamed environment'}
                </option>
              ))}
            </select>
          </div>
        )}
        <fieldset class="segmented">
          <legend>Document</legend>
          <label>
            <input type="radio" name="compose-target" checked={documentKey === BASE} onChange={() => setTarget(BASE)} />
            Project base
          </label>
          <label>
            <input type="radio" name="compose-target" checked={documentKey !== BASE} disabled={!environment} onChange={() => setTarget('overlay')} />
            Environment overlay
          </label>
        </fieldset>
        <fieldset class="segmented">
          <legend>View</legend>
          <label>
            <input type="radio" name="compose-view" checked={view === 'yaml'} onChange={() => setView('yaml')} />
            Editor
          </label>
          <label>
            <input type="radio" name="compose-view" checked={view === 'split'} onChange={() => setView('split')} />
            Editor and merged preview
          </label>
        </fieldset>
      </div>
      <div class={view === 'split' ? 'compose-panes split' : 'compose-panes'}>
        <form class="pane" onSubmit={save} aria-labelledby="compose-editor-heading">
          <h3 id="compose-editor-heading">{editorLabel}</h3>
          {isPlatform ? <p class="notice">This is a platform project: its Compose file is read-only.</p> : readOnly && <ReadOnlyNote />}
          <YamlEditor
            key={documentKey}
            label={editorLabel}
            value={text}
            onChange={readOnly ? undefined : edit}
            readOnly={readOnly}
            problem={problem}
            describedBy="compose-problem"
          />
          <p id="compose-problem" class="field-error">
            {problem && describeProblem(problem)}
          </p>
          <FormAlert problem={failure} />
          {!readOnly && (
            <div class="row">
              <SubmitButton busy={busy} busyLabel="Saving…">
                Save
              </SubmitButton>
              <span role="status" class="muted">
                {status || (dirty ? 'Unsaved changes' : '')}
              </span>
            </div>
          )}
        </form>
        {preview && (
          <div class="pane">
            <h3 id="merged-preview-heading">
              Merged preview <span class="badge">Read-only</span>
            </h3>
            <p class="muted">
              Base merged with the overlay of {environment?.name ?? 'no environment'}, simulated in the browser. Deploys use the compiled file.
            </p>
            {preview.problem ? (
              <p class="notice">{preview.problem.message}</p>
            ) : (
              <YamlEditor label="Merged preview (read-only)" value={preview.text} readOnly />
            )}
          </div>
        )}
      </div>
    </section>
  );
}
