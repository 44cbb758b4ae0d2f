// Prints the first screen's figures on slow mobile data: medians of
// cold loads of `/` and `/store` at 360 px, throttled as e2e/support/firstScreen.mjs
// says, against a fresh seeded shop (e2e/support/shop.mjs: target/debug/gateway,
// or GATEWAY_BIN) serving frontend/dist: first contentful paint, largest
// contentful paint, first product card, layout shift and the bytes by kind.
// `RUNS` (default 5) loads per page; `UNTHROTTLED=1` adds rows without
// throttling. With `LIGHTHOUSE_BIN` (bench/first-screen.sh installs npm
// `lighthouse`) it then runs Lighthouse's mobile preset on both pages, in the
// same Chromium, and prints its four scores. bench/first-screen.sh runs it.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { launch } from '../e2e/support/browser.mjs';
import { measureFirstScreen, slow4g, targets } from '../e2e/support/firstScreen.mjs';
import { startShop } from '../e2e/support/shop.mjs';

const runs = Number(process.env.RUNS ?? 5);
const paths = ['/', '/store'];
const shop = await startShop();
const browser = await launch();
const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
const kb = (bytes) => `${(bytes / 1024).toFixed(0)} KB`;
try {
  console.log(`first screen at 360 px, medians of ${runs} cold loads`);
  console.log(`throttling: ${slow4g.latency} ms round trip, 1.6 Mbps, CPU ${slow4g.cpuSlowdown}x slower`);
  console.log(`targets: first contentful paint <= ${s(targets.fcp)}, first product card with its image <= ${s(targets.firstCard)}`);
  console.log('page     conditions   FCP       LCP       first card   CLS     JS before card  transferred (by kind)');
  const conditions = [['slow 4G', slow4g]];
  if (process.env.UNTHROTTLED) conditions.push(['none', null]);
  for (const [label, throttling] of conditions) {
    for (const path of paths) {
      const result = await measureFirstScreen(browser, shop.url, path, { runs, conditions: throttling });
      const kinds = Object.entries(result.byKind)
        .sort(([, a], [, b]) => b - a)
        .map(([kind, bytes]) => `${kind} ${kb(bytes)}`)
        .join(', ');
      console.log(
        `${path.padEnd(8)} ${label.padEnd(12)} ${s(result.fcp).padEnd(9)} ${s(result.lcp).padEnd(9)} ${s(result.firstCard).padEnd(12)} ` +
          `${result.cls.toFixed(3).padEnd(7)} ${kb(result.scriptBeforeCard).padEnd(15)} ${kb(result.transferred)} (${kinds})` +
          `   (runs FCP/card: ${result.loads.map((l) => `${s(l.fcp)}/${s(l.firstCard)}`).join(', ')}; scripts: ${result.loads[0].scriptEncodings.join(', ')})`,
      );
    }
  }
} finally {
  await browser.close();
}

try {
  if (process.env.LIGHTHOUSE_BIN) {
    console.log('\nLighthouse, mobile preset (its own simulated slow 4G and 4x CPU), Chromium at ' + (process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'));
    console.log('page     performance  accessibility  best-practices  SEO');
    for (const path of paths) {
      const scores = await lighthouse(new URL(path, shop.url).href);
      const cell = (id) => String(Math.round((scores[id]?.score ?? NaN) * 100));
      console.log(
        `${path.padEnd(8)} ${cell('performance').padEnd(12)} ${cell('accessibility').padEnd(14)} ${cell('best-practices').padEnd(15)} ${cell('seo')}`,
      );
      const metric = (id) => scores.audits[id]?.displayValue ?? '?';
      console.log(
        `         simulated: FCP ${metric('first-contentful-paint')}, LCP ${metric('largest-contentful-paint')}, ` +
          `TBT ${metric('total-blocking-time')}, CLS ${metric('cumulative-layout-shift')}, speed index ${metric('speed-index')}`,
      );
      const failed = Object.values(scores.audits)
        .filter((audit) => audit.score !== null && audit.score < 1 && audit.scoreDisplayMode === 'binary')
        .map((audit) => audit.id);
      if (failed.length) console.log(`         failed audits: ${failed.join(', ')}`);
    }
  }
} finally {
  await shop.stop();
}

/** Lighthouse's categories and audits for `url` (its CLI's JSON report). */
async function lighthouse(url) {
  const { stdout } = await promisify(execFile)(
    process.env.LIGHTHOUSE_BIN,
    [
      url,
      `--chrome-path=${process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'}`,
      // Root (CI, the bench machine) needs Chromium without its sandbox.
      '--chrome-flags=--headless=new --no-sandbox',
      '--only-categories=performance,accessibility,best-practices,seo',
      '--output=json',
      '--output-path=stdout',
      '--quiet',
    ],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  const report = JSON.parse(stdout);
  return { ...report.categories, audits: report.audits };
}
