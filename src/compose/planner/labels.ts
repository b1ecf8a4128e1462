/**
 * Server labels: what `node.labels.<key>` constraints and `spread` preferences match. Shared by
 * the planner, the API that stores them and the console that edits them (browser-safe).
 */

/** A label key: letters, digits, `.`, `_`, `-`, starting with a letter or digit; at most 63. */
export const LABEL_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
/** A label value: 1-255 characters, no control characters, no space at either end (a constraint's value is trimmed). */
export const LABEL_VALUE = /^(?![\s])[^\u0000-\u001f\u007f]{1,255}(?<![\s])$/u;
export const MAX_SERVER_LABELS = 32;
