import { describe, expect, test } from 'bun:test';
import { caseFold } from './case-fold.ts';

describe('caseFold: Unicode full case folding', () => {
  test.each<[string, string[]]>([
    ['final and ordinary sigma', ['ΟΔΟΣ', 'οδος', 'οδοσ']],
    ['sigma in the middle of a word', ['ΣΟΦΙΑ', 'σοφια', 'ςοφια']],
    ['ligature ﬁ', ['ﬁle', 'FILE', 'file']],
    ['ligatures ﬀ ﬃ ﬆ', ['ﬀﬃﬆ', 'FFFFIST', 'ffffist']],
    ['sharp s', ['Straße', 'STRASSE', 'strasse']],
    ['capital sharp s', ['STRAẞE', 'straße', 'strasse']],
    ['Kelvin sign', ['\u212A', 'K', 'k']],
    ['long s', ['ſ', 'S', 's']],
    ['Cherokee (folds to upper case)', ['\uAB70', '\u13A0']],
    ['Armenian ligature', ['և', 'ԵՒ', 'եւ']],
  ])('%s', (_name, spellings) => {
    const folded = spellings.map(caseFold);
    expect(new Set(folded).size).toBe(1);
  });

  test('toLowerCase alone does not fold these (why this module exists)', () => {
    expect('ΟΔΟΣ'.toLowerCase()).not.toBe('οδοσ');
    expect('ﬁle'.toLowerCase()).not.toBe('file');
    expect('Straße'.toLowerCase()).not.toBe('strasse');
  });

  test('dotless ı and dotted i stay apart (default folding, not the Turkic one)', () => {
    expect(caseFold('ı')).toBe('ı');
    expect(caseFold('KIRMIZI')).toBe('kirmizi');
    expect(caseFold('kırmızı')).not.toBe(caseFold('kirmizi'));
    expect(caseFold('İ')).toBe('i\u0307');
  });

  test('texts without case are unchanged; folding is idempotent', () => {
    for (const text of ['123 _-.', '日本語', 'shop-api', '']) expect(caseFold(text)).toBe(text);
    for (const text of ['ΟΔΟΣ', 'ﬁle', 'Straße', 'kırmızı', 'İstanbul']) expect(caseFold(caseFold(text))).toBe(caseFold(text));
  });
});
