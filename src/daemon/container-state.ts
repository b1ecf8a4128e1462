/**
 * Container states as the specification's states table names them. A daemon report carries the
 * runtime's state; the hub stores it as the container row's `status` (`pending` is the hub's own
 * value for a pre-allocated row that no report has listed yet, so it never comes from a daemon).
 */

/** States Docker reports (`docker ps` `.State`, `docker inspect` `.State.Status`), kept as-is. */
export const RUNTIME_CONTAINER_STATES = ['created', 'running', 'paused', 'restarting', 'removing', 'exited', 'dead'] as const;

/** Everything a report may carry: a runtime state, or `unknown` for anything else. */
export const CONTAINER_STATES = [...RUNTIME_CONTAINER_STATES, 'unknown'] as const;

export type ContainerState = (typeof CONTAINER_STATES)[number];

const RUNTIME_STATES: ReadonlySet<string> = new Set(RUNTIME_CONTAINER_STATES);

/**
 * Maps Docker's state word to a report state. Docker spells states in lower case; other
 * spellings, surrounding blanks, empty or missing values and states of other runtimes map to
 * `unknown` rather than being guessed at.
 */
export function toContainerState(dockerState: unknown): ContainerState {
  return typeof dockerState === 'string' && RUNTIME_STATES.has(dockerState) ? (dockerState as ContainerState) : 'unknown';
}
