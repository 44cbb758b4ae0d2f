// Debian's Chromium driven by playwright-core (no browser download: the
// machine's network reaches package registries only).
//
//   const browser = await launch();
//   const page = await newPage(browser, 'mobile', { baseURL: shop.url });
//   await page.goto('/store');
//   await screenshot(page, 'store');          // e2e/artifacts/store-mobile.png
//   assertNoProblems(page);                   // no console error, failed request or 4xx/5xx
//   await assertAccessible(page);             // no serious axe-core (WCAG A/AA) violation
//   await page.context().close();
//   await browser.close();

import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

export const artifactsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../artifacts');

/** The two sizes every page is checked at: a common phone and a laptop. */
export const viewports = {
  mobile: { width: 390, height: 844 },
  desktop: { width: 1366, height: 900 },
};

/**
 * Chromium at `CHROMIUM_PATH` (default Debian's `/usr/bin/chromium`), headless.
 * The network is closed: without the background-networking flags Chromium
 * keeps trying to reach Google's services and logs every failure.
 */
export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

const problemsOf = new WeakMap();

/**
 * A page in a fresh context (no shared cookies or storage) at `viewport`:
 * `'mobile'`, `'desktop'` or `{ width, height }`. A viewport narrower than 600
 * px is a touch phone (`isMobile`, `hasTouch`). `options` go to
 * `browser.newContext` (e.g. `{ baseURL: shop.url }`). The page's problems are
 * recorded from the start: see `problems()`.
 */
export async function newPage(browser, viewport = 'desktop', options = {}) {
  const size = typeof viewport === 'string' ? viewports[viewport] : viewport;
  if (!size)
    throw new Error(
      `unknown viewport ${viewport}: use ${Object.keys(viewports).join(', ')} or { width, height }`,
    );
  const phone = size.width < 600;
  const context = await browser.newContext({
    viewport: size,
    isMobile: phone,
    hasTouch: phone,
    deviceScaleFactor: 1,
    ...options,
  });
  const page = await context.newPage();
  const list = [];
  problemsOf.set(page, list);
  page.on('console', (message) => {
    if (message.type() === 'error')
      list.push({ kind: 'console', text: message.text(), url: message.location().url });
  });
  page.on('pageerror', (error) => list.push({ kind: 'pageerror', text: String(error.stack ?? error) }));
  page.on('requestfailed', (request) => {
    const reason = request.failure()?.errorText ?? 'failed';
    // A navigation cancels the previous page's requests: that is no fault.
    if (reason === 'net::ERR_ABORTED') return;
    list.push({
      kind: 'requestfailed',
      text: `${request.method()} ${request.url()}: ${reason}`,
      url: request.url(),
    });
  });
  page.on('response', (response) => {
    if (response.status() >= 400) {
      const request = response.request();
      list.push({
        kind: 'response',
        text: `${request.method()} ${response.url()}: ${response.status()}`,
        url: response.url(),
      });
    }
  });
  return page;
}

/**
 * What went wrong on `page` so far, in order: `{ kind, text, url }` with kind
 * `console` (a console error; Chromium also logs one for every 4xx/5xx),
 * `pageerror` (an uncaught exception), `requestfailed` (no answer at all) or
 * `response` (an answer with status 400 or more).
 */
export function problems(page) {
  return [...(problemsOf.get(page) ?? [])];
}

/**
 * Fails unless `page` had no problems. `ignore` lists regular expressions for
 * the ones a test expects (a wrong password's 400, say), matched on `text`.
 */
export function assertNoProblems(page, { ignore = [] } = {}) {
  const left = problems(page).filter((problem) => !ignore.some((pattern) => pattern.test(problem.text)));
  assert.deepEqual(
    left,
    [],
    `the page had problems:\n${left.map((p) => `  ${p.kind}: ${p.text}`).join('\n')}`,
  );
}

/**
 * Saves a full-page PNG of `page` as `e2e/artifacts/<name>-<viewport>.png`
 * (`mobile`, `desktop`, or `<width>x<height>`) and returns its path.
 */
export async function screenshot(page, name) {
  const size = page.viewportSize();
  const label =
    Object.entries(viewports).find(([, v]) => v.width === size.width && v.height === size.height)?.[0] ??
    `${size.width}x${size.height}`;
  mkdirSync(artifactsDir, { recursive: true });
  const file = path.join(artifactsDir, `${name}-${label}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

const axeSource = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/**
 * Runs axe-core (https://github.com/dequelabs/axe-core) on what `page` shows
 * now, against WCAG 2.x A and AA (names, labels, roles, contrast, focusable
 * dialogs...), and fails on any violation of impact `serious` or `critical`.
 * `disable` lists rule ids a test knowingly skips. Returns the minor findings.
 */
export async function assertAccessible(page, { disable = [] } = {}) {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: axeSource });
  const { violations } = await page.evaluate(
    (rules) =>
      window.axe.run(document, {
        runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
        rules: Object.fromEntries(rules.map((id) => [id, { enabled: false }])),
      }),
    disable,
  );
  const severe = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    severe.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).slice(0, 5).join(', ')}`),
    [],
    `accessibility violations on ${page.url()}`,
  );
  return violations.filter((v) => !severe.includes(v));
}
