import { describe, expect, test } from 'bun:test';
import { ApiError } from './api.ts';
import { fieldOfError } from './forms.tsx';

const error = (code: string, path?: string) => new ApiError(422, code, 'message', path, 'request');

describe('which field an API error concerns', () => {
  const fields = ['token', 'email', 'password'];

  test('a path names the field, by its last segment or through the form map', () => {
    expect(fieldOfError(error('validation_failed', 'email'), fields)).toBe('email');
    expect(fieldOfError(error('validation_failed', 'proof.token'), fields)).toBe('token');
    expect(fieldOfError(error('host_auth_unavailable', 'proof.kind'), fields, { paths: { 'proof.kind': 'token' } })).toBe('token');
  });

  test('an error without a path can name a field by its code', () => {
    expect(fieldOfError(error('invalid_credentials'), fields, { codes: { invalid_credentials: 'token' } })).toBe('token');
  });

  test('anything else belongs to the whole form', () => {
    expect(fieldOfError(error('invalid_credentials'), fields)).toBeNull();
    expect(fieldOfError(error('validation_failed', 'organization.name'), fields)).toBeNull();
    expect(fieldOfError(error('validation_failed', ''), fields)).toBeNull();
  });
});
