/**
 * Browser tests and the console benchmark: Debian's Chromium driven by playwright-core (no
 * browser download), and a real Panel started from source on a temporary data directory.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
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

/** A signed-in call from inside the page (the browser adds the cookie and the Origin); throws on a non-2xx answer. */
export function apiFromPage<T>(page: Page, method: string, path: string, body?: unknown): Promise<T> {
  return page.evaluate(
    async ([method, path, body]) => {
      const response = await fetch(path, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
      return response.status === 204 ? undefined : response.json();
    },
    [method, path, body] as const,
  ) as Promise<T>;
}

/** The page's level-1 heading with exactly this name. */
/**
 * Replaces an editor's text the way a user pastes a file: CodeMirror handles the paste event
 * itself. (Playwright's fill() goes through the browser's own contenteditable editing, which
 * writes inline style attributes that the console's CSP rightly refuses.)
 */
export async function pasteInto(editor: Locator, text: string): Promise<void> {
  await editor.click();
  await editor.press('Control+a');
  await editor.evaluate((element, pasted) => {
    const clipboardData = new DataTransfer();
    clipboardData.setData('text/plain', pasted);
    element.dispatchEvent(new ClipboardEvent('paste', { clipboardData, bubbles: true, cancelable: true }));
  }, text);
}

export function heading(page: Page, name: string): Locator {
  return page.getByRole('heading', { level: 1, name, exact: true });
}

/** The error paragraph of the field an input belongs to (forms.tsx puts it right under the input). */
export function fieldErrorOf(input: Locator): Locator {
  return input.locator('xpath=ancestor::div[contains(@class, "field")][1]').locator('.field-error');
}

/** The start of the markup of each input, select and textarea (and with `editors`, each contenteditable) that has neither a label nor an aria-label. */
export function unlabelledControls(page: Page, { editors = false }: { editors?: boolean } = {}): Promise<string[]> {
  const selector = editors ? 'input, select, textarea, [contenteditable="true"]' : 'input, select, textarea';
  return page.evaluate(
    (selector) =>
      [...document.querySelectorAll<HTMLElement>(selector)]
        .filter((element) => !(element as HTMLInputElement).labels?.length && !element.getAttribute('aria-label'))
        .map((element) => element.outerHTML.slice(0, 80)),
    selector,
  );
}

/** Opens the console, installs Panel through the API with the install token (signing the page in as the owner) and answers the new organization's id and its Default and platform workspaces. */
export async function installThroughApi(
  page: Page,
  panel: PanelFromSource,
  owner: { email: string; password: string },
  organizationName: string,
): Promise<{ organizationId: string; defaultWorkspaceId: string; platformWorkspaceId: string }> {
  await page.goto(panel.url);
  await waitForConsole(page);
  const token = readFileSync(join(panel.dataDir, 'install-token'), 'utf8').trim();
  const { organizationId } = await apiFromPage<{ organizationId: string }>(page, 'POST', '/api/install/v1/complete', {
    proof: { kind: 'token', token },
    organizationName,
    email: owner.email,
    password: owner.password,
  });
  const workspaces = await apiFromPage<{ data: { id: string; name: string; kind: string }[] }>(page, 'GET', `/api/client/v1/workspaces?organizationId=${organizationId}`);
  return {
    organizationId,
    defaultWorkspaceId: workspaces.data.find((workspace) => workspace.name === 'Default')!.id,
    platformWorkspaceId: workspaces.data.find((workspace) => workspace.kind === 'panel')!.id,
  };
}
