import { describe, expect, test } from 'bun:test';
import { answerCache } from './answer-cache.ts';

/** A cache and a build that counts its calls and answers `text`. */
function counted(limits?: Parameters<typeof answerCache>[0]) {
  const answer = answerCache(limits);
  let builds = 0;
  const build = (text: string) => () => {
    builds++;
    return text;
  };
  return { answer, build, builds: () => builds };
}

describe('the answer cache', () => {
  test('answers the kept text while the changes it was read under stand, and builds again once they moved', () => {
    const { answer, build, builds } = counted();
    expect(answer('page', 'service:1;', build('first'))).toBe('first');
    expect(answer('page', 'service:1;', build('not built'))).toBe('first');
    expect(builds()).toBe(1);
    expect(answer('page', 'service:2;', build('second'))).toBe('second');
    expect(answer('page', 'service:2;', build('not built'))).toBe('second');
    // Counters never go back, but a text kept under other counters is never answered for these.
    expect(answer('page', 'service:1;', build('third'))).toBe('third');
    expect(builds()).toBe(3);
  });

  test('keys are separate pages', () => {
    const { answer, build } = counted();
    answer('a', 'c;', build('A'));
    expect(answer('b', 'c;', build('B'))).toBe('B');
    expect(answer('a', 'c;', build('not built'))).toBe('A');
  });

  test('keeps nothing read without counters (inside a transaction)', () => {
    const { answer, build, builds } = counted();
    answer('page', null, build('first'));
    expect(answer('page', null, build('second'))).toBe('second');
    expect(answer('page', 'c;', build('third'))).toBe('third');
    expect(builds()).toBe(3);
  });

  test('past its entry bound the least recently answered page goes first', () => {
    const { answer, build, builds } = counted({ entries: 2, characters: 1_000 });
    answer('a', 'c;', build('A'));
    answer('b', 'c;', build('B'));
    answer('a', 'c;', build('not built'));
    answer('c', 'c;', build('C'));
    expect(builds()).toBe(3);
    expect(answer('a', 'c;', build('not built'))).toBe('A');
    expect(answer('b', 'c;', build('B again'))).toBe('B again');
    expect(builds()).toBe(4);
  });

  test('past its character bound old pages go, and a page larger than the bound is not kept', () => {
    const { answer, build, builds } = counted({ entries: 100, characters: 10 });
    answer('a', 'c;', build('aaaaaa'));
    answer('b', 'c;', build('bbbbbb'));
    expect(answer('b', 'c;', build('not built'))).toBe('bbbbbb');
    expect(answer('a', 'c;', build('aaaaaa again'))).toBe('aaaaaa again');
    answer('big', 'c;', build('x'.repeat(11)));
    expect(answer('big', 'c;', build('big again'))).toBe('big again');
    expect(builds()).toBe(5);
  });
});
