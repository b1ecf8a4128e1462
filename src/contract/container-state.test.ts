import { describe, expect, test } from 'bun:test';
import { toContainerState } from './container-state.ts';
import { reportedContainerStates } from './enums.ts';

describe('toContainerState', () => {
  // One row per runtime state of the specification's states table: reported as-is.
  test.each(['created', 'running', 'paused', 'restarting', 'removing', 'exited', 'dead'])('%s is kept', (state) => {
    expect(toContainerState(state)).toBe(state as never);
  });

  // "any | daemon report | state not in the list | unknown".
  test.each(['', 'Running', ' running', 'up', 'healthy', 'stopped', 'pending', 'unknown', 'created\n'])(
    '%p is unknown',
    (state) => {
      expect(toContainerState(state)).toBe('unknown');
    },
  );

  test.each([[undefined], [null], [1], [{}], [['running']]])('non-string %p is unknown', (state) => {
    expect(toContainerState(state)).toBe('unknown');
  });

  test('a report never carries pending, the hub-only pre-allocation status', () => {
    expect(reportedContainerStates).toEqual(['created', 'running', 'paused', 'restarting', 'removing', 'exited', 'dead', 'unknown']);
  });
});
