// The first screen on a phone over slow mobile data: for `/` and
// `/store`, cold loads at 360 px under DevTools throttling (150 ms round
// trip, 1.6 Mbps, CPU 4x slower) paint and show a first product card, and the
// scripts arrive compressed. The timings are printed; the targets (1.8 s and
// 2.5 s, medians) are the benchmark's to judge (bench/first-screen.sh), not a
// test's, since a busy machine moves them (house rule: speed targets live in
// benchmarks). FIRST_SCREEN_TARGETS=1 makes this test hold them too.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launch } from './support/browser.mjs';
import { measureFirstScreen, targets } from './support/firstScreen.mjs';
import { startShop } from './support/shop.mjs';

let shop;
let browser;

before(async () => {
  shop = await startShop();
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await shop?.stop();
});

const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;

for (const path of ['/', '/store']) {
  test(`the first screen of ${path} paints and shows its first product card on slow 4G, its scripts compressed`, async () => {
    const result = await measureFirstScreen(browser, shop.url, path, { runs: 3 });
    const runs = result.loads.map((load) => `${seconds(load.fcp)}/${seconds(load.firstCard)}`).join(', ');
    console.log(`${path}: FCP ${seconds(result.fcp)}, first card ${seconds(result.firstCard)} (runs: ${runs})`);
    assert.ok(Number.isFinite(result.fcp) && Number.isFinite(result.firstCard), `no first card (runs ${runs})`);
    if (process.env.FIRST_SCREEN_TARGETS === '1') {
      assert.ok(result.fcp <= targets.fcp, `median first contentful paint ${seconds(result.fcp)} (runs ${runs})`);
      assert.ok(result.firstCard <= targets.firstCard, `median first product card ${seconds(result.firstCard)} (runs ${runs})`);
    }
    for (const load of result.loads) {
      assert.ok(
        load.scriptEncodings.every((encoding) => encoding === 'br' || encoding === 'gzip' || encoding === 'none'),
        `script encodings ${load.scriptEncodings}`,
      );
      assert.ok(load.scriptEncodings.includes('br') || load.scriptEncodings.includes('gzip'), 'the scripts come compressed');
    }
  });
}
