import { describe, expect, test } from 'bun:test';
import { ApiError } from './api.ts';
import { namesIn, onListField, optionalInteger } from './principals-api.ts';

describe('form helpers', () => {
  test('an optional integer is undefined when empty and refused at its field when not digits', () => {
    expect(optionalInteger(' ', 'uid')).toBeUndefined();
    expect(optionalInteger('1001', 'uid')).toBe(1001);
    expect(() => optionalInteger('12a', 'uid')).toThrow(expect.objectContaining({ path: 'uid', code: 'validation_failed' }));
  });

  test('names split on spaces and commas', () => {
    expect(namesIn(' shop, logs  analytics,')).toEqual(['shop', 'logs', 'analytics']);
  });

  test('an error about a list entry moves to the list field and names the entry', () => {
    const entry = new ApiError(422, 'validation_failed', 'is listed twice', 'options.databases.1', 'r1');
    expect(() => onListField(entry, 'options.databases', 'databases', ['app', 'app'])).toThrow(expect.objectContaining({ path: 'databases', message: 'app: is listed twice' }));
    const whole = new ApiError(409, 'database_in_use', 'database app is still bound', 'options.databases');
    expect(() => onListField(whole, 'options.databases', 'databases', [])).toThrow(expect.objectContaining({ path: 'databases', message: 'database app is still bound' }));
    const other = new ApiError(422, 'validation_failed', 'bad', 'name');
    expect(() => onListField(other, 'options.databases', 'databases', [])).toThrow(other);
  });
});
