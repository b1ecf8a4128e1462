/**
 * Host-account bootstrap for the install wizard: where `pamtester` is installed, a host account
 * in the `sudo` group may prove host access instead of the install token. Commands run as
 * argument arrays (never a shell string); the password travels on stdin, never in argv or the
 * environment. Panel must run as root for PAM to check accounts other than its own.
 */

export const PAM_SERVICE = 'login';
export const HOST_ADMIN_GROUP = 'sudo';
/** POSIX-portable login names; a leading `-` (an option to pamtester or id) is impossible. */
const HOST_USERNAME = /^[a-z_][a-z0-9_-]{0,31}$/;
const COMMAND_TIMEOUT_MS = 15_000;
const COMMAND_ENV = { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C', LC_ALL: 'C' };

export type HostAuthResult = 'ok' | 'unavailable' | 'refused';

/** The two side effects, injectable so tests never run PAM. */
export interface HostCommandRunner {
  which(command: string): string | null;
  run(argv: string[], stdin?: string): Promise<{ exitCode: number; stdout: string }>;
}

export const bunCommandRunner: HostCommandRunner = {
  which: (command) => Bun.which(command, { PATH: COMMAND_ENV.PATH }),
  async run(argv, stdin) {
    const child = Bun.spawn(argv, {
      stdin: stdin === undefined ? 'ignore' : new TextEncoder().encode(stdin),
      stdout: 'pipe',
      stderr: 'ignore',
      env: COMMAND_ENV,
      timeout: COMMAND_TIMEOUT_MS,
    });
    const [stdout, exitCode] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    return { exitCode, stdout };
  },
};

export const isValidHostUsername = (username: string) => HOST_USERNAME.test(username);

/** `pamtester login <user> authenticate`; the password is written to its stdin. */
export function pamtesterCommand(pamtesterPath: string, username: string): string[] {
  return [pamtesterPath, PAM_SERVICE, username, 'authenticate'];
}

/** `id -nG <user>`: the user's group names, space separated. */
export function groupsCommand(idPath: string, username: string): string[] {
  return [idPath, '-nG', username];
}

export function isHostAuthAvailable(runner: HostCommandRunner = bunCommandRunner): boolean {
  return runner.which('pamtester') !== null;
}

/** Checks the password with PAM, then that the account is in the sudo group. */
export async function authenticateHostAccount(
  username: string,
  password: string,
  runner: HostCommandRunner = bunCommandRunner,
): Promise<HostAuthResult> {
  const pamtester = runner.which('pamtester');
  if (pamtester === null) return 'unavailable';
  if (!isValidHostUsername(username) || password === '' || /[\r\n\0]/.test(password)) return 'refused';
  const pam = await runner.run(pamtesterCommand(pamtester, username), `${password}\n`);
  if (pam.exitCode !== 0) return 'refused';
  const groups = await runner.run(groupsCommand(runner.which('id') ?? '/usr/bin/id', username));
  if (groups.exitCode !== 0) return 'refused';
  return groups.stdout.trim().split(/\s+/).includes(HOST_ADMIN_GROUP) ? 'ok' : 'refused';
}
