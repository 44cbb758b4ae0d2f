// Prints the first screen's figures on slow mobile data: medians of
// cold loads of `/` and `/store` at 360 px, throttled as e2e/support/firstScreen.mjs
// says, against a fresh seeded shop (e2e/support/shop.mjs: target/debug/gateway,
// or GATEWAY_BIN) serving frontend/dist. `RUNS` (default 5) loads per page;
// `UNTHROTTLED=1` adds a row without throttling. bench/first-screen.sh runs it.
import { launch } from '../e2e/support/browser.mjs';
import { measureFirstScreen, slow4g, targets } from '../e2e/support/firstScreen.mjs';
import { startShop } from '../e2e/support/shop.mjs';

const runs = Number(process.env.RUNS ?? 5);
const shop = await startShop();
const browser = await launch();
const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
try {
  console.log(`first screen at 360 px, medians of ${runs} cold loads`);
  console.log(`throttling: ${slow4g.latency} ms round trip, 1.6 Mbps, CPU ${slow4g.cpuSlowdown}x slower`);
  console.log(`targets: first contentful paint <= ${s(targets.fcp)}, first product card with its image <= ${s(targets.firstCard)}`);
  console.log('page     conditions   FCP       first card   transferred');
  const conditions = [['slow 4G', slow4g]];
  if (process.env.UNTHROTTLED) conditions.push(['none', null]);
  for (const [label, throttling] of conditions) {
    for (const path of ['/', '/store']) {
      const result = await measureFirstScreen(browser, shop.url, path, { runs, conditions: throttling });
      console.log(
        `${path.padEnd(8)} ${label.padEnd(12)} ${s(result.fcp).padEnd(9)} ${s(result.firstCard).padEnd(12)} ${(result.transferred / 1024).toFixed(0)} KB` +
          `   (runs: ${result.loads.map((l) => `${s(l.fcp)}/${s(l.firstCard)}`).join(', ')}; scripts: ${result.loads[0].scriptEncodings.join(', ')})`,
      );
    }
  }
} finally {
  await browser.close();
  await shop.stop();
}
