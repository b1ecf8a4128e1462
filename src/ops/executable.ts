/**
 * This very executable, for remote servers to download (issue 14 §2: "the same binary"). The
 * compiled `panel` serves its own file. Run from source (`npm start`), there is no executable
 * yet: the first download builds one with scripts/build.ts into <data dir>/executable/panel
 * (once per process; a later start builds afresh, so it never lags behind the sources). Only the
 * platform Panel itself runs on can be served: a build for another would need Bun's runtime for
 * that platform, which is downloaded from the internet.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Logger } from '../lib/logger.ts';

export interface BuiltExecutable {
  path: string;
  sha256: string;
  size: number;
}

export interface SelfExecutable {
  /** `linux-x64`, `linux-arm64`, ...: what `uname` of a server asking for it must say. */
  platform: string;
  /** The file and its SHA-256 (hex), built first when running from source. */
  file(): Promise<BuiltExecutable>;
}

const ARCHITECTURES: Record<string, string> = { x64: 'x64', arm64: 'arm64' };

export const runningPlatform = (): string => `${process.platform}-${ARCHITECTURES[process.arch] ?? process.arch}`;

async function sha256Of(path: string): Promise<string> {
  const hasher = new Bun.CryptoHasher('sha256');
  for await (const chunk of Bun.file(path).stream()) hasher.update(chunk);
  return hasher.digest('hex');
}

/**
 * `selfCommand` is how main.ts runs itself: `[panel]` compiled, `[bun, <checkout>/src/main.ts]`
 * from source.
 */
export function selfExecutable(selfCommand: string[], dataDir: string, logger: Logger): SelfExecutable {
  let built: Promise<BuiltExecutable> | undefined;
  const describe = async (path: string): Promise<BuiltExecutable> => ({ path, sha256: await sha256Of(path), size: Bun.file(path).size });
  const build = async (): Promise<BuiltExecutable> => {
    if (selfCommand.length === 1) return describe(selfCommand[0]!);
    const checkout = dirname(dirname(selfCommand[1]!));
    const outfile = join(dataDir, 'executable', 'panel');
    mkdirSync(dirname(outfile), { recursive: true, mode: 0o700 });
    logger.info('building the executable remote servers download (running from source)', { outfile });
    const child = Bun.spawn([selfCommand[0]!, join(checkout, 'scripts', 'build.ts'), outfile], { cwd: checkout, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
    const [stderr, exitCode] = await Promise.all([new Response(child.stderr).text(), child.exited]);
    if (exitCode !== 0 || !existsSync(outfile)) throw new Error(`building the executable failed (exit ${exitCode}): ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
    return describe(outfile);
  };
  return {
    platform: runningPlatform(),
    file() {
      built ??= build().catch((error) => {
        built = undefined; // a failed build is tried again on the next download
        throw error;
      });
      return built;
    },
  };
}
