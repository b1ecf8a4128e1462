/**
 * Browser tests and the console benchmark: Debian's Chromium driven by playwright-core (no
 * browser download), and a real Panel started from source on a temporary data directory.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { TEST_KEY_RING } from '../harness.ts';
import { type StartedPanel, startPanel } from './process.ts';

export const CHROMIUM_PATH = '/usr/bin/chromium';
/** The flags ARCHITECTURE.md §7 fixes; playwright adds --headless itself. */
const CHROMIUM_FLAGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const ROOT = join(import.meta.dir, '..', '..');
export const SCREENSHOT_DIR = join(ROOT, 'test-results', 'console');

/** Why the browser tests cannot run here, or null when Chromium is installed. */
export function chromiumMissing(): string | null {
  return existsSync(CHROMIUM_PATH) ? null : `${CHROMIUM_PATH} not found (apt-get install -y chromium)`;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_FLAGS });
}

/** A port free right now: the public URL (and so the Origin the server checks) must name it. */
function freePort(): number {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const { port } = probe;
  probe.stop(true);
  return port;
}

export interface PanelFromSource extends StartedPanel {
  dataDir: string;
  stop: () => Promise<void>;
}

/** `bun src/main.ts serve` (self-hosted runtime) on a fresh data directory. */
export async function startPanelFromSource(env: Record<string, string> = {}): Promise<PanelFromSource> {
  const dataDir = mkdtempSync(join(tmpdir(), 'panel-console-'));
  const panel = await startPanel([process.execPath, join(ROOT, 'src', 'main.ts'), 'serve'], {
    PANEL_DATA_DIR: dataDir,
    PANEL_HOST: '127.0.0.1',
    PANEL_PORT: String(freePort()),
    PANEL_SECRETS: TEST_KEY_RING,
    PANEL_LOG_LEVEL: 'info', // readiness is read from the "panel serving" info line
    ...env,
  });
  return {
    ...panel,
    dataDir,
    async stop() {
      panel.process.kill('SIGTERM');
      await panel.process.exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Resolves once the console has rendered its first page (the app-ready marker). */
export async function waitForConsole(page: Page): Promise<void> {
  await page.waitForSelector('html[data-app-ready="true"]');
}

/**
 * Everything a page did that a strict, offline console must not: requests to other origins,
 * Content-Security-Policy violations and uncaught errors.
 */
export function watchPage(page: Page, origin: string): { problems: string[] } {
  const problems: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(origin) && !request.url().startsWith('data:')) problems.push(`request to ${request.url()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource: the server responded')) problems.push(`console error: ${message.text()}`);
  });
  return { problems };
}

/** Saves `<name>.png` under test-results/console/. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}
