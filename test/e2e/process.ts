/**
 * Starting `panel` processes for end-to-end tests: readiness is read from the process's own
 * log line ("panel serving"), never waited for with sleeps.
 */
import type { Subprocess } from 'bun';

export interface StartedPanel {
  process: Subprocess<'ignore', 'pipe', 'pipe'>;
  url: string;
  socketPath: string;
  logs: () => string;
  /** Resolves once the log contains `text` (the pipe is read asynchronously: a line written before a response may arrive after it). */
  waitForLog: (text: string, timeoutMs?: number) => Promise<void>;
}

async function readUntil(stream: ReadableStream<Uint8Array>, sink: string[], pattern: RegExp): Promise<RegExpMatchArray | null> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return null;
    sink.push(decoder.decode(value));
    const match = sink.join('').match(pattern);
    if (match) {
      // Keep draining in the background so the child never blocks on a full pipe.
      (async () => {
        for (;;) {
          const next = await reader.read();
          if (next.done) return;
          sink.push(decoder.decode(next.value));
        }
      })();
      return match;
    }
  }
}

/** Spawns `cmd` and resolves once it logs that it serves, or rejects with its output if it exits. */
export async function startPanel(cmd: string[], env: Record<string, string>): Promise<StartedPanel> {
  const child = Bun.spawn(cmd, { env: { ...process.env, ...env }, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
  const output: string[] = [];
  const match = await readUntil(child.stderr, output, /"msg":"panel serving","url":"([^"]+)".*?"socket":"([^"]+)"/);
  if (!match) {
    await child.exited;
    throw new Error(`panel exited (${child.exitCode}) before serving:\n${output.join('')}`);
  }
  const logs = () => output.join('');
  const waitForLog = async (text: string, timeoutMs = 5000) => {
    const deadline = Date.now() + timeoutMs;
    while (!logs().includes(text)) {
      if (Date.now() > deadline) throw new Error(`panel did not log ${JSON.stringify(text)} within ${timeoutMs} ms:\n${logs()}`);
      await Bun.sleep(20);
    }
  };
  return { process: child, url: match[1]!, socketPath: match[2]!, logs, waitForLog };
}

/** A long-running child whose output is kept (for failure messages); stop it with `kill` + `exited`. */
export function spawnLogged(cmd: string[], env: Record<string, string>): { child: Subprocess; logs: () => string } {
  const output: string[] = [];
  const child = Bun.spawn(cmd, { env: { ...process.env, ...env }, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
  for (const stream of [child.stdout, child.stderr]) {
    void (async () => {
      for await (const chunk of stream) output.push(new TextDecoder().decode(chunk));
    })();
  }
  return { child, logs: () => output.join('') };
}

/**
 * Stops a process with SIGTERM, then SIGKILL if it has not exited within `graceMs`: since the
 * observability landing, a lab daemon with running containers has been seen not to exit on
 * SIGTERM (cause not found yet), which hung lab teardowns past their limit.
 */
export async function stopProcess(child: Subprocess, graceMs = 10_000): Promise<void> {
  child.kill('SIGTERM');
  const stopped = await Promise.race([child.exited.then(() => true), Bun.sleep(graceMs).then(() => false)]);
  if (stopped) return;
  console.error(`process ${child.pid} ignored SIGTERM for ${graceMs} ms and is killed`);
  child.kill('SIGKILL');
  await child.exited;
}
