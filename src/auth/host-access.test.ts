import { describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkInstallToken, discardInstallToken, ensureInstallToken, installTokenPath, readInstallToken } from './install-token.ts';
import { authenticateHostAccount, groupsCommand, type HostCommandRunner, isHostAuthAvailable, pamtesterCommand } from './pam.ts';
import { generateRecoveryCodes, hashRecoveryCode, looksLikeRecoveryCode, normalizeRecoveryCode } from './recovery-codes.ts';

describe('install token', () => {
  test('written once with mode 0600, kept across restarts, compared exactly, deleted after use', () => {
    const dir = mkdtempSync(join(tmpdir(), 'panel-install-'));
    try {
      const first = ensureInstallToken(join(dir, 'data'));
      expect(first.created).toBe(true);
      expect(first.token).toMatch(/^pni_[A-Za-z0-9_-]{43}$/);
      expect(statSync(first.file).mode & 0o777).toBe(0o600);
      expect(ensureInstallToken(join(dir, 'data'))).toEqual({ ...first, created: false });
      expect(checkInstallToken(join(dir, 'data'), first.token)).toBe(true);
      expect(checkInstallToken(join(dir, 'data'), `${first.token}x`)).toBe(false);
      expect(checkInstallToken(join(dir, 'data'), first.token.slice(0, -1))).toBe(false);
      expect(checkInstallToken(join(dir, 'data'), '')).toBe(false);
      discardInstallToken(join(dir, 'data'));
      expect(readInstallToken(join(dir, 'data'))).toBeNull();
      expect(checkInstallToken(join(dir, 'data'), first.token)).toBe(false);
      // A file that is not one of our tokens is replaced, never trusted.
      writeFileSync(installTokenPath(join(dir, 'data')), 'guessable\n', { mode: 0o644 });
      expect(checkInstallToken(join(dir, 'data'), 'guessable')).toBe(false);
      expect(ensureInstallToken(join(dir, 'data')).created).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('host account check (pamtester)', () => {
  const recording = (which: Record<string, string | null>, results: { exitCode: number; stdout: string }[]) => {
    const calls: { argv: string[]; stdin?: string }[] = [];
    const runner: HostCommandRunner = {
      which: (command) => which[command] ?? null,
      async run(argv, stdin) {
        calls.push({ argv, stdin });
        return results.shift() ?? { exitCode: 1, stdout: '' };
      },
    };
    return { runner, calls };
  };

  test('without pamtester installed it is unavailable and runs nothing', async () => {
    const { runner, calls } = recording({}, []);
    expect(isHostAuthAvailable(runner)).toBe(false);
    expect(await authenticateHostAccount('admin', 'secret', runner)).toBe('unavailable');
    expect(calls).toEqual([]);
  });

  test('argument arrays: pamtester login <user> authenticate, then id -nG <user>; the password only on stdin', async () => {
    expect(pamtesterCommand('/usr/bin/pamtester', 'admin')).toEqual(['/usr/bin/pamtester', 'login', 'admin', 'authenticate']);
    expect(groupsCommand('/usr/bin/id', 'admin')).toEqual(['/usr/bin/id', '-nG', 'admin']);
    const { runner, calls } = recording({ pamtester: '/usr/bin/pamtester', id: '/usr/bin/id' }, [
      { exitCode: 0, stdout: '' },
      { exitCode: 0, stdout: 'admin adm sudo\n' },
    ]);
    expect(await authenticateHostAccount('admin', 'p@ss; rm -rf /', runner)).toBe('ok');
    expect(calls).toEqual([
      { argv: ['/usr/bin/pamtester', 'login', 'admin', 'authenticate'], stdin: 'p@ss; rm -rf /\n' },
      { argv: ['/usr/bin/id', '-nG', 'admin'], stdin: undefined },
    ]);
  });

  test('refused: wrong password, not in sudo, option-like or odd user names, multi-line passwords', async () => {
    const wrong = recording({ pamtester: '/p' }, [{ exitCode: 1, stdout: '' }]);
    expect(await authenticateHostAccount('admin', 'x', wrong.runner)).toBe('refused');
    const notSudo = recording({ pamtester: '/p' }, [{ exitCode: 0, stdout: '' }, { exitCode: 0, stdout: 'admin sudoers wheel\n' }]);
    expect(await authenticateHostAccount('admin', 'x', notSudo.runner)).toBe('refused');
    for (const [name, password] of [['-admin', 'x'], ['--help', 'x'], ['Admin', 'x'], ['a b', 'x'], ['admin', 'line\nline'], ['admin', '']]) {
      const probe = recording({ pamtester: '/p' }, [{ exitCode: 0, stdout: 'sudo' }, { exitCode: 0, stdout: 'sudo' }]);
      expect(await authenticateHostAccount(name!, password!, probe.runner)).toBe('refused');
      expect(probe.calls).toEqual([]);
    }
  });
});

describe('recovery codes', () => {
  test('ten distinct 80-bit codes; typed back in any case, with or without dashes', () => {
    const codes = generateRecoveryCodes();
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) {
      expect(code).toMatch(/^([a-z2-7]{4}-){3}[a-z2-7]{4}$/);
      expect(looksLikeRecoveryCode(code)).toBe(true);
      expect(hashRecoveryCode(code.toUpperCase().replaceAll('-', ' '))).toBe(hashRecoveryCode(code));
    }
    expect(normalizeRecoveryCode(' AbCd-EFGH ')).toBe('abcdefgh');
    expect(looksLikeRecoveryCode('123456')).toBe(false);
  });
});
