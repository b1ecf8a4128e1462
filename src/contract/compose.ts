/** Compose documents as the API stores and answers them, and the per-layer compose endpoints. */
import * as v from 'valibot';
import { JsonObject, refuseArrays, strict, Timestamp } from './common.ts';

/** A stored ComposeDocument: `version` 1 with the model in `data` and editor state in `presentation`. */
export const ComposeDocument = refuseArrays(
  v.looseObject({ version: v.literal(1, 'must be 1'), data: v.optional(JsonObject), presentation: v.optional(JsonObject) }),
);

/** A ComposeDocument as stored and answered inside `options.compose` (written through the compose parser). */
export const StoredComposeDocument = v.object({
  version: v.literal(1),
  data: v.record(v.string(), v.unknown()),
  /** `yaml`: the text as last saved; `editorView`: the console tab last used. */
  presentation: v.looseObject({ yaml: v.string(), editorView: v.optional(v.string()) }),
});
export type StoredComposeDocument = v.InferOutput<typeof StoredComposeDocument>;

/** Exactly one of `yaml` (text, kept byte for byte) and `data` (JSON, patched onto the stored text). */
export const ComposeSave = strict({
  yaml: v.optional(v.string()),
  data: v.optional(JsonObject),
  /** The console editor tab ('yaml' or 'form'); kept when not sent. */
  editorView: v.optional(v.pipe(v.string(), v.maxLength(64, 'must be at most 64 characters'))),
});
export type ComposeSave = v.InferInput<typeof ComposeSave>;

/** One layer's document (a project's base or an environment's overlay). */
export const ComposeLayer = v.object({
  version: v.literal(1),
  /** The text as last saved (or regenerated from data, comments of untouched nodes kept). */
  yaml: v.string(),
  /** The model; merge tags as `{"$reset": ...}` and `{"$override": ...}`. */
  data: v.record(v.string(), v.unknown()),
  editorView: v.nullable(v.string()),
  updatedAt: Timestamp,
});
export type ComposeLayer = v.InferOutput<typeof ComposeLayer>;
