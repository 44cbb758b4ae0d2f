// The first screen on a phone over slow mobile data: cold loads of
// a page in Chromium with the DevTools protocol's network and CPU throttling,
// timing the first contentful paint and the first product card whose picture
// has loaded. Used by e2e/first-screen.test.mjs (which checks the targets) and
// scripts/first-screen.mjs (which prints the figures; bench/first-screen.sh).
import { newPage } from './browser.mjs';

/** "Slow 4G" as the first-screen targets are measured: 150 ms round trip, 1.6 Mbps down, CPU 4x slower. */
export const slow4g = {
  latency: 150,
  downloadThroughput: (1.6 * 1024 * 1024) / 8,
  uploadThroughput: (750 * 1024) / 8,
  cpuSlowdown: 4,
};

/** The first screen's targets, in milliseconds: first contentful paint and first product card. */
export const targets = { fcp: 1800, firstCard: 2500 };

/** A 360 px phone, the narrowest the shop supports. */
export const phone = { width: 360, height: 780 };

// Runs in the page before its own scripts: records the first contentful paint,
// the largest contentful paint so far, the layout shift so far (CLS as the sum
// of the shifts no input caused, https://web.dev/articles/cls), and the first
// moment a product card's picture (not the logo placeholder) has loaded and
// the card is in the document.
const probe = () => {
  window.__firstScreen = { fcp: null, firstCard: null, lcp: null, cls: 0 };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.name === 'first-contentful-paint') window.__firstScreen.fcp = entry.startTime;
    }
  }).observe({ type: 'paint', buffered: true });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) window.__firstScreen.lcp = entry.startTime;
  }).observe({ type: 'largest-contentful-paint', buffered: true });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if (!entry.hadRecentInput) window.__firstScreen.cls += entry.value;
  }).observe({ type: 'layout-shift', buffered: true });
  const look = () => {
    const image = document.querySelector('[data-product-card] img');
    if (image && image.complete && image.naturalWidth > 0 && !image.src.endsWith('/logo.svg')) {
      window.__firstScreen.firstCard = performance.now();
      return;
    }
    requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
};

/**
 * One cold load of `path` (a fresh browser context: nothing cached) under
 * `conditions` (`slow4g`, or `null` for none). Returns `{ fcp, firstCard, lcp }`
 * in ms from the start of navigation, `cls`, and the bytes transferred, in all
 * and by kind (`script`, `image`, ... as DevTools names resource types),
 * until the first card plus `settle` ms, the time LCP and layout shifts are
 * given to happen after it.
 */
export async function measureColdLoad(browser, baseURL, path, conditions = slow4g, { settle = 1000, trace = false } = {}) {
  const page = await newPage(browser, phone, { baseURL });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  let transferred = 0;
  const encodings = new Map();
  const kinds = new Map();
  const byKind = {};
  cdp.on('Network.loadingFinished', (event) => {
    transferred += event.encodedDataLength;
    const kind = (kinds.get(event.requestId) ?? 'other').toLowerCase();
    byKind[kind] = (byKind[kind] ?? 0) + event.encodedDataLength;
  });
  cdp.on('Network.responseReceived', (event) => {
    kinds.set(event.requestId, event.type);
    const encoding = event.response.headers['content-encoding'] ?? event.response.headers['Content-Encoding'];
    if (event.type === 'Script') encodings.set(event.response.url, encoding ?? 'none');
  });
  if (conditions) {
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: conditions.latency,
      downloadThroughput: conditions.downloadThroughput,
      uploadThroughput: conditions.uploadThroughput,
    });
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: conditions.cpuSlowdown });
  }
  await page.addInitScript(probe);
  if (trace) await browser.startTracing(page, { categories: ['devtools.timeline', 'loading', 'toplevel', 'v8.execute'] });
  await page.goto(path, { waitUntil: 'commit' });
  await page.waitForFunction(() => window.__firstScreen?.firstCard !== null && window.__firstScreen?.fcp !== null, null, {
    timeout: 60_000,
    polling: 100,
  });
  await page.waitForTimeout(settle);
  // The scripts that had arrived when the first card showed: with the card in
  // the HTML, none need to (the bytes DevTools counts per kind are all of them).
  const times = await page.evaluate(() => ({
    ...window.__firstScreen,
    // When the document had arrived and when the parser was done with it: the
    // first paint's time between them is parsing, styling and layout.
    documentEnd: performance.getEntriesByType('navigation')[0].responseEnd,
    domInteractive: performance.getEntriesByType('navigation')[0].domInteractive,
    scriptBeforeCard: performance
      .getEntriesByType('resource')
      .filter((entry) => new URL(entry.name).pathname.endsWith('.js') && entry.responseEnd <= window.__firstScreen.firstCard)
      .reduce((sum, entry) => sum + entry.transferSize, 0),
  }));
  const beforePaint = trace ? mainThreadBeforePaint(JSON.parse(String(await browser.stopTracing())).traceEvents) : undefined;
  await page.context().close();
  return { ...times, beforePaint, transferred, byKind, scriptEncodings: [...new Set(encodings.values())] };
}

/**
 * The renderer's main-thread work from the start of the navigation to the
 * first contentful paint, in CPU milliseconds by kind (`ParseHTML`,
 * `UpdateLayoutTree` for styles, `Layout`, `EvaluateScript`, ... as DevTools
 * names trace events; nested ones count in each), and `all`, the tasks it
 * ran in that time: the trace's thread time, which the machine's load moves
 * less than the clock.
 */
function mainThreadBeforePaint(events) {
  const paint = events.find((event) => event.name === 'firstContentfulPaint');
  if (!paint) return undefined;
  const main = events.find((event) => event.name === 'thread_name' && event.args?.name === 'CrRendererMain' && event.pid === paint.pid);
  const onMain = events.filter((event) => event.pid === paint.pid && event.tid === main?.tid && event.ph === 'X' && event.ts <= paint.ts);
  // `entry`: 1 when the app's entry module ran before the paint.
  const byKind = { all: 0, entry: 0 };
  for (const event of onMain) {
    const ms = (event.tdur ?? event.dur ?? 0) / 1000;
    if (event.name === 'v8.evaluateModule' || /\/static\/main-/.test(event.args?.data?.url ?? '')) byKind.entry = 1;
    if (event.name === 'RunTask' || event.name === 'ThreadControllerImpl::RunTask') byKind.all += ms;
    else if (['ParseHTML', 'UpdateLayoutTree', 'Layout', 'EvaluateScript', 'v8.compileModule', 'Paint', 'PrePaint', 'ParseAuthorStyleSheet', 'FunctionCall'].includes(event.name)) {
      byKind[event.name] = (byKind[event.name] ?? 0) + ms;
    }
  }
  return byKind;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** `runs` cold loads of `path`: every run and the medians. */
export async function measureFirstScreen(browser, baseURL, path, { runs = 5, conditions = slow4g } = {}) {
  const loads = [];
  for (let i = 0; i < runs; i += 1) loads.push(await measureColdLoad(browser, baseURL, path, conditions));
  return {
    path,
    loads,
    fcp: median(loads.map((load) => load.fcp)),
    firstCard: median(loads.map((load) => load.firstCard)),
    lcp: median(loads.map((load) => load.lcp)),
    cls: median(loads.map((load) => load.cls)),
    transferred: median(loads.map((load) => load.transferred)),
    scriptBeforeCard: median(loads.map((load) => load.scriptBeforeCard)),
    byKind: Object.fromEntries(
      [...new Set(loads.flatMap((load) => Object.keys(load.byKind)))].map((kind) => [
        kind,
        median(loads.map((load) => load.byKind[kind] ?? 0)),
      ]),
    ),
  };
}
