/**
 * Container states as the specification's states table names them. A daemon report carries the
 * runtime's state; the hub stores it as the container row's `status` (`pending` is the hub's own
 * value for a pre-allocated row that no report has listed yet, so it never comes from a daemon).
 */
import { type ReportedContainerState, runtimeContainerStates } from './enums.ts';

const RUNTIME_STATES: ReadonlySet<string> = new Set(runtimeContainerStates);

/**
 * Maps Docker's state word to a report state. Docker spells states in lower case; other
 * spellings, surrounding blanks, empty or missing values and states of other runtimes map to
 * `unknown` rather than being guessed at.
 */
export function toContainerState(dockerState: unknown): ReportedContainerState {
  return typeof dockerState === 'string' && RUNTIME_STATES.has(dockerState) ? (dockerState as ReportedContainerState) : 'unknown';
}
