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

/** Sends `signal` and answers whether the process exited within `withinMs` (polled through `exited`, no fixed sleep). */
export async function exitsOn(child: Subprocess, signal: NodeJS.Signals, withinMs: number): Promise<boolean> {
  child.kill(signal);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), withinMs)));
  const exited = await Promise.race([child.exited.then(() => true as const), deadline]);
  clearTimeout(timer);
  return exited;
}

/**
 * Stops a process with SIGTERM, then SIGKILL if it has not exited within `graceMs`: a safety net
 * for teardowns (a daemon that stayed alive after SIGTERM once hung lab teardowns past their limit);
 * it says when it fires, which should not happen.
 */
export async function stopProcess(child: Subprocess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  if (await exitsOn(child, 'SIGTERM', graceMs)) return;
  console.error(`process ${child.pid} ignored SIGTERM for ${graceMs} ms and is killed`);
  child.kill('SIGKILL');
  await child.exited;
}
