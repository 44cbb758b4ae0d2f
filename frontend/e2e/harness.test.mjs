// The browser-test harness itself: the shop starts on a fresh database with a
// stand-in build, Chromium loads it at a client-side route, the page reaches
// the API with the settings of /config.json, and sql() sees the same data.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { assertNoProblems, launch, newPage, screenshot } from './support/browser.mjs';
import { startShop } from './support/shop.mjs';

// A stand-in for the real build: reads /config.json, asks the API for the
// products a visitor sees and prints their count.
const INDEX = `<!doctype html>
<html lang="es">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <link rel="icon" href="data:,">
    <title>Harness</title>
  </head>
  <body>
    <h1>Tienda de prueba</h1>
    <p id="status">cargando…</p>
    <script type="module">
      const config = await (await fetch('/config.json')).json();
      const base = config.supabaseUrl || window.location.origin;
      const response = await fetch(base + '/rest/v1/products?select=id&limit=1', {
        headers: { apikey: config.publishableKey, authorization: 'Bearer ' + config.publishableKey, prefer: 'count=exact' },
      });
      const total = response.headers.get('content-range').split('/')[1];
      document.querySelector('#status').textContent = 'productos visibles: ' + total;
    </script>
  </body>
</html>
`;

let dist;
let shop;
let browser;

before(async () => {
  dist = mkdtempSync(path.join(tmpdir(), 'shop-dist-'));
  writeFileSync(path.join(dist, 'index.html'), INDEX);
  shop = await startShop({ frontendDir: dist });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await shop?.stop();
  rmSync(dist, { recursive: true, force: true });
});

test('a client-side route loads the app, which reads the products a visitor sees', async () => {
  const [{ visible }] = await shop.sql(
    'select count(*) as visible from products where status is distinct from false',
  );
  assert.ok(visible > 0, 'the seed has active products');
  for (const viewport of ['mobile', 'desktop']) {
    const page = await newPage(browser, viewport, { baseURL: shop.url });
    await page.goto('/store');
    await page.getByText(`productos visibles: ${visible}`).waitFor();
    assert.equal(new URL(page.url()).pathname, '/store');
    const file = await screenshot(page, 'harness-store');
    assert.ok(statSync(file).size > 0, `${file} is written`);
    assertNoProblems(page);
    await page.context().close();
  }
});

test('sql() runs as the superuser with parameters and typed results', async () => {
  const [{ count }] = await shop.sql('select count(*) from products');
  assert.equal(count, 50);
  const [brand] = await shop.sql('select name from brands where id = $1', [1]);
  assert.equal(typeof brand.name, 'string');
});

test('the staff credentials of the banner sign in, and createUser makes a user with no company', async () => {
  const signIn = await fetch(`${shop.url}/auth/v1/token?grant_type=password`, {
    method: 'POST',
    headers: { apikey: shop.anonKey, 'content-type': 'application/json' },
    body: JSON.stringify(shop.staff),
  });
  assert.equal(signIn.status, 200);
  const user = await shop.createUser({
    email: 'sin-empresa@tienda.example',
    password: 'una-clave-segura',
    name: 'Sin Empresa',
  });
  const profiles = await shop.sql('select company_id from profiles where user_id = $1', [user.id]);
  assert.deepEqual(profiles, []);
});

test('a missing bundle is a 404 rather than the app', async () => {
  const response = await fetch(`${shop.url}/static/missing.js`);
  assert.equal(response.status, 404);
});
