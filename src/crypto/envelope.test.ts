import { describe, expect, test } from 'bun:test';
import {
  ENVELOPE_ERROR_MESSAGE,
  EnvelopeError,
  type EnvelopeLayout,
  envelopeHeader,
  formatEnvelope,
  keyIdField,
  parseEnvelope,
  parseVersionMarker,
  uuidField,
} from './envelope.ts';

const SERVER_ID = '01940000-0000-7000-8000-00000000abcd';
const layout: EnvelopeLayout<'serverId' | 'keyId'> = {
  scheme: 'pntest',
  idFields: [uuidField('serverId'), keyIdField('keyId')],
  minPayloadBytes: 2,
};
const payload = Buffer.from([1, 2, 3, 4]);
const envelope = formatEnvelope(envelopeHeader(layout, { serverId: SERVER_ID, keyId: 'k_1' }), payload);

function expectRefused(text: unknown) {
  expect(() => parseEnvelope(layout, text)).toThrow(EnvelopeError);
  expect(() => parseEnvelope(layout, text)).toThrow(ENVELOPE_ERROR_MESSAGE);
}

describe('parseVersionMarker', () => {
  test.each([
    ['v1', 1],
    ['v2', 2],
    ['v10', 10],
    ['v0', null],
    ['v01', null],
    ['V1', null],
    ['v', null],
    ['1', null],
    ['v1 ', null],
    ['v-1', null],
    ['v1e3', null],
  ])('%p -> %p', (marker, version) => {
    expect(parseVersionMarker(marker)).toBe(version);
  });
});

describe('parseEnvelope', () => {
  test('formats the header in layout order and parses it back', () => {
    expect(envelope).toBe(`pntest.v1.${SERVER_ID}.k_1.AQIDBA`);
    expect(parseEnvelope(layout, envelope)).toEqual({
      header: `pntest.v1.${SERVER_ID}.k_1`,
      ids: { serverId: SERVER_ID, keyId: 'k_1' },
      payload,
    });
  });

  test.each([
    ['not a string', 42],
    ['another scheme', envelope.replace('pntest', 'pnother')],
    ['a scheme prefix', envelope.replace('pntest', 'pntes')],
    ['a supported-looking future version', envelope.replace('.v1.', '.v2.')],
    ['server id in upper case', envelope.replace(SERVER_ID, SERVER_ID.toUpperCase())],
    ['server id not a UUID', envelope.replace(SERVER_ID, 'server-1')],
    ['key id with a bad character', envelope.replace('k_1', 'k+1')],
    ['key id too long', envelope.replace('k_1', 'k'.repeat(33))],
    ['fields swapped', `pntest.v1.k_1.${SERVER_ID}.AQIDBA`],
    ['payload below the minimum size', `pntest.v1.${SERVER_ID}.k_1.AQ`],
  ])('refuses %s', (_name, text) => {
    expectRefused(text);
  });

  test('every refusal is the same error with the same message', () => {
    const error = new EnvelopeError();
    expect(error.message).toBe(ENVELOPE_ERROR_MESSAGE);
    expect(error.name).toBe('EnvelopeError');
    expect(error).toBeInstanceOf(Error);
  });
});

describe('envelopeHeader', () => {
  test('refuses malformed ids as a programming error, naming the field', () => {
    expect(() => envelopeHeader(layout, { serverId: 'nope', keyId: 'k1' })).toThrow(
      'pntest: serverId has an invalid shape',
    );
    expect(() => envelopeHeader(layout, { serverId: SERVER_ID, keyId: 'a.b' })).toThrow(TypeError);
  });
});
