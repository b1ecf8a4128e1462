/**
 * /api/reference in headless Chromium against a real Panel from source (issue 14 §5): the viewer
 * renders the description with its authentication explained and the security schemes to try,
 * shows none of the viewer's cloud features (Ask AI, MCP, the developer toolbar with Share and
 * Deploy), and the page reaches nothing outside Panel. Screenshot: test-results/console/api-reference.png.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { chromiumMissing, launchChromium, type PanelFromSource, SCREENSHOT_DIR, startPanelFromSource, watchPage } from './browser.ts';

const missing = chromiumMissing();
if (missing) console.warn(`skipping the API reference browser test: ${missing}`);

const TIMEOUT = 60_000;
/** What the viewer shows for its cloud features when they are on (its English labels). */
const CLOUD_LABELS = ['Ask AI', 'Ask AI Agent', 'Generate MCP', 'Connect MCP', 'VS Code', 'Cursor', 'Developer Tools', 'Share', 'Deploy', 'Configure'];

let panel: PanelFromSource;
let browser: Browser;

describe.skipIf(missing !== null)('the API reference viewer', () => {
  beforeAll(async () => {
    panel = await startPanelFromSource();
    browser = await launchChromium();
  }, TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    await panel?.stop();
  });

  test(
    'explains authentication, offers no cloud feature and makes no outside request',
    async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const watched = watchPage(page, panel.url);
      await page.goto(`${panel.url}/api/reference`);
      await page.getByRole('heading', { name: 'Panel API' }).first().waitFor({ timeout: TIMEOUT });
      await page.getByText('Authentication', { exact: true }).first().waitFor();

      const text = await page.evaluate(() => document.body.innerText);
      expect(text).toContain('Authentication: the client surface takes the session cookie');
      expect(text).toContain('Selected Auth Type: apiToken');
      expect(text).toContain(new URL(panel.url).origin);
      const controls = await page.evaluate(() =>
        [...document.querySelectorAll('button, a, [role="button"], [role="menuitem"]')].map((element) => (element as HTMLElement).innerText.trim()),
      );
      expect(controls.filter((label) => CLOUD_LABELS.includes(label))).toEqual([]);
      expect(text).not.toContain('Ask AI');
      expect(text).not.toContain('MCP');
      const linksOut = await page.evaluate(() =>
        [...document.querySelectorAll('a[href]')]
          .filter((link) => (link as HTMLElement).offsetParent !== null && new URL((link as HTMLAnchorElement).href).origin !== location.origin)
          .map((link) => (link as HTMLAnchorElement).href),
      );
      expect(linksOut).toEqual([]);

      // The first screen only: the whole reference is tens of thousands of pixels tall.
      mkdirSync(SCREENSHOT_DIR, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOT_DIR, 'api-reference.png') });
      expect(watched.problems).toEqual([]);
    },
    TIMEOUT,
  );
});
