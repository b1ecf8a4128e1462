/**
 * Console first-load benchmark: headless Chromium on loopback, a fresh browser context (empty
 * cache) per run, navigation start -> the console's app-ready marker (first page rendered,
 * after its two API calls) and -> DOMContentLoaded. Beside it, in the same run and from the same
 * server, a blank static page, so the ratio is what the console itself costs on this machine.
 *   bun scripts/bench/console.ts [runs]
 * Target: first page load under 300 ms.
 *
 * The server is the real app (buildApp) on an in-memory database, run from source with one extra
 * route for the blank page; the console bundle is built once before timing (the executable has
 * it embedded instead).
 */
import type { Browser, Page } from 'playwright-core';
import { chromiumMissing, launchChromium } from '../../test/e2e/browser.ts';
import { createTestApp } from '../../test/harness.ts';

const RUNS = Number(process.argv[2] ?? 20);
const BLANK_PATH = '/bench/blank';

interface Load {
  title: string;
  domContentLoaded: number;
  ready: number;
  transferredKiB: number;
}

async function timeLoad(browser: Browser, url: string, waitForApp: boolean): Promise<Load> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page: Page = await context.newPage();
  await page.goto(url);
  if (waitForApp) await page.waitForSelector('html[data-app-ready="true"]');
  const load = await page.evaluate(() => {
    const navigation = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
    const ready = performance.getEntriesByName('panel:app-ready')[0]?.startTime ?? navigation.domContentLoadedEventEnd;
    const resources = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
    const bytes = navigation.transferSize + resources.reduce((sum, entry) => sum + entry.transferSize, 0);
    return { title: document.title, domContentLoaded: navigation.domContentLoadedEventEnd, ready, transferredKiB: bytes / 1024 };
  });
  await context.close();
  return load;
}

function summary(label: string, loads: Load[]): number {
  const pick = (key: Exclude<keyof Load, 'title'>) => loads.map((load) => load[key]).sort((a, b) => a - b);
  const median = (values: number[]) => values[Math.floor(values.length / 2)]!;
  const p90 = (values: number[]) => values[Math.min(values.length - 1, Math.ceil(values.length * 0.9) - 1)]!;
  const ready = pick('ready');
  console.log(
    `${label.padEnd(14)} ready median ${median(ready).toFixed(1)} ms  p90 ${p90(ready).toFixed(1)} ms  ` +
      `DOMContentLoaded median ${median(pick('domContentLoaded')).toFixed(1)} ms  transferred ${median(pick('transferredKiB')).toFixed(1)} KiB`,
  );
  return median(ready);
}

const missing = chromiumMissing();
if (missing) {
  console.error(`cannot run the console benchmark: ${missing}`);
  process.exit(1);
}

const { app } = createTestApp();
app.get(BLANK_PATH, () => new Response('<!doctype html><html lang="en"><title>blank</title></html>', { headers: { 'content-type': 'text/html; charset=utf-8' } }));
app.listen({ hostname: '127.0.0.1', port: 0, reusePort: false });
const origin = `http://127.0.0.1:${app.server!.port}`;
const browser = await launchChromium();
try {
  const warmUp = await timeLoad(browser, `${origin}/`, true);
  console.log(`first load after start (bundles the console from source): ${warmUp.ready.toFixed(1)} ms; the page is "${warmUp.title}"`);
  const blank: Load[] = [];
  const consoleLoads: Load[] = [];
  for (let run = 0; run < RUNS; run++) {
    blank.push(await timeLoad(browser, `${origin}${BLANK_PATH}`, false));
    consoleLoads.push(await timeLoad(browser, `${origin}/`, true));
  }
  console.log(`${RUNS} runs each, fresh browser context per load, loopback`);
  const baseline = summary('blank page', blank);
  const measured = summary('console', consoleLoads);
  console.log(`console / blank: ${(measured / baseline).toFixed(1)}x  (target: console under 300 ms)`);
} finally {
  await browser.close();
  await app.stop();
}
