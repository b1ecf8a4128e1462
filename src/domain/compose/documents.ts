/**
 * Compose documents as the client API writes them: the compose endpoints send YAML text or JSON
 * data, a project/environment create or PATCH sends a whole ComposeDocument in options.compose.
 * Both end up here, so every stored document has been parsed (or patched) by src/compose/document.ts
 * and validated the same way. No database access.
 */
import { entriesOf, plain } from '../../compose/checks.ts';
import type { ComposeDocument, PresentationExtras } from '../../compose/document.ts';
import type * as DocumentText from '../../compose/document.ts';
import { composeInvalid } from '../../compose/limits.ts';
import { type StoredPolicy, validateCompose } from '../../compose/validate.ts';
import { deepEqual, isMapping, type JsonObject } from '../../compose/values.ts';
import { validationFailed } from '../../lib/errors.ts';

/**
 * The YAML library and the text side of documents, loaded at the first document read or written
 * as text: routes and the daemon hub import this module for its pure helpers, and at start most
 * never touch YAML (the library is several MiB of a start's memory, docs/PERFORMANCE.md (18)).
 */
const text = (): typeof DocumentText => require('../../compose/document.ts');

/** The body of PUT .../compose: exactly one of `yaml` and `data`. */
export interface ComposeInput {
  yaml?: string;
  data?: Record<string, unknown>;
  editorView?: string;
}

/** A ComposeDocument as a client create/PATCH gives it in options.compose (schema-checked: version 1). */
export interface GivenComposeDocument {
  version: 1;
  data?: Record<string, unknown>;
  presentation?: Record<string, unknown>;
}

/** What GET .../compose answers (updatedAt is the owning row's). */
export interface ComposeView {
  version: 1;
  yaml: string;
  data: JsonObject;
  editorView: string | null;
}

/** The stored document of a project's or environment's options, or null when there is none. */
export function storedDocument(options: Record<string, unknown> | null): ComposeDocument | null {
  const compose = options?.compose;
  return isMapping(compose) && isMapping(compose.data) ? (compose as unknown as ComposeDocument) : null;
}

/** The model of a stored document; an absent document is an empty model. */
export const dataOf = (document: ComposeDocument | null): JsonObject => document?.data ?? {};

function extrasOf(document: ComposeDocument | null): PresentationExtras {
  const { yaml: _yaml, ...extras } = document?.presentation ?? { yaml: '' };
  return extras;
}

export function viewOf(document: ComposeDocument | null): ComposeView {
  const editorView = document?.presentation?.editorView;
  return {
    version: 1,
    yaml: document === null ? '' : text().composeToText(document),
    data: dataOf(document),
    editorView: typeof editorView === 'string' ? editorView : null,
  };
}

/**
 * The document a PUT saves. YAML is kept byte for byte; JSON patches the previous text so
 * comments of untouched nodes survive. Presentation extras (the editor view) carry over unless given.
 */
export function documentFromInput(input: ComposeInput, previous: ComposeDocument | null): ComposeDocument {
  if (input.yaml === undefined && input.data === undefined) throw validationFailed('send yaml (text) or data (JSON)', 'yaml');
  if (input.yaml !== undefined && input.data !== undefined) throw validationFailed('send either yaml or data, not both', 'data');
  const extras: PresentationExtras = { ...extrasOf(previous), ...(input.editorView === undefined ? {} : { editorView: input.editorView }) };
  if (input.yaml !== undefined) return text().parseComposeText(input.yaml, extras);
  const document = text().fromJson(input.data, previous);
  return { ...document, presentation: { ...extras, yaml: document.presentation.yaml } };
}

/**
 * The document a create/PATCH stores from options.compose. `presentation.yaml`, when given, is
 * the text saved (and `data`, if also given, must be what it parses to); otherwise `data` is
 * written as JSON onto the previous text. Other presentation keys are stored as given.
 */
export function documentFromOptions(given: GivenComposeDocument, previous: ComposeDocument | null): ComposeDocument {
  const { yaml, ...extras } = given.presentation ?? {};
  if (yaml !== undefined && typeof yaml !== 'string') throw validationFailed('must be a string', 'options.compose.presentation.yaml');
  if (typeof yaml === 'string') {
    const document = text().parseComposeText(yaml, extras as PresentationExtras);
    if (given.data !== undefined && !deepEqual(document.data, given.data)) {
      throw composeInvalid('options.compose.data differs from what presentation.yaml parses to; send one of them');
    }
    return document;
  }
  if (given.data === undefined) throw validationFailed('give data or presentation.yaml', 'options.compose.data');
  const document = text().fromJson(given.data, previous);
  return { ...document, presentation: { ...(extras as PresentationExtras), yaml: document.presentation.yaml } };
}

/** Principal aliases the base declares at x-panel.principals (an overlay's services may name them). */
export function principalAliases(base: JsonObject): string[] {
  const xPanel = plain(base['x-panel'] ?? null);
  const principals = isMapping(xPanel) ? plain(xPanel.principals ?? null) : null;
  return isMapping(principals) ? entriesOf(principals).map(([alias]) => alias) : [];
}

/** Save-time validation of one layer: a base alone, an overlay against its base's principals. */
export function validateLayer(data: JsonObject, policy: StoredPolicy, base?: JsonObject): void {
  validateCompose(data, { policy, knownPrincipals: base === undefined ? [] : principalAliases(base) });
}
