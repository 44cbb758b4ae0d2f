// The first page of the catalogue comes inside the page (gateway/src/first_screen/mod.rs):
// the store and the landing show it without asking `/rest/v1` for it, for the
// filters of their address and with the shop's settings; a signed-in staff
// member asks as always. Store cards show their stock per the settings, and
// when the last page comes in the focus goes to its first product. supabase-js
// stays off that first screen (src/lib/supabase.ts): the landing never loads
// it, the store only after the page's load event.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { assertNoProblems, launch, newPage } from './support/browser.mjs';
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

async function rows(text, params) {
  const result = await shop.sql(text, params);
  return Array.isArray(result) ? result : result.rows;
}

/** A fresh page that records the REST tables it asks for. */
async function recorded(viewport = 'desktop', context) {
  const page = context ? await context.newPage() : await newPage(browser, viewport, { baseURL: shop.url });
  const asked = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith('/rest/v1/')) asked.push(url.pathname.slice('/rest/v1/'.length));
  });
  return { page, asked };
}

/** supabase-js's chunk in the build (frontend/dist, which the shop serves). */
const supabaseChunk = (() => {
  const manifest = JSON.parse(readFileSync(new URL('../dist/.vite/manifest.json', import.meta.url), 'utf8'));
  const [, chunk] = Object.entries(manifest).find(([source]) => source.includes('@supabase/supabase-js/')) ?? [];
  assert.ok(chunk?.isDynamicEntry, 'supabase-js is a chunk loaded on demand');
  return `/${chunk.file}`;
})();

/** Whether the page asked for supabase-js, and when (ms from navigation start). */
const supabaseLoadedAt = (page) =>
  page.evaluate(
    (file) => performance.getEntriesByType('resource').find((entry) => new URL(entry.name).pathname === file)?.startTime ?? null,
    supabaseChunk,
  );

const cardNames = async (page) =>
  (await page.locator('[data-product-card] h3').allTextContents()).map((name) => name.trim());

test('a filtered store shows its first page from the page itself, in order, asking nothing for it', async () => {
  const expected = await rows(
    `select name from products where status and quantity > 0 and category = 'celulares'
      order by price asc, id asc limit 20`,
  );
  const { page, asked } = await recorded();
  await page.goto('/store?categoria=celulares&orden=price-asc');
  await page.locator('[data-product-card]').first().waitFor();
  assert.deepEqual(await cardNames(page), expected.map((row) => row.name));
  await page.waitForLoadState('networkidle');
  assert.ok(!asked.includes('products'), `asked again: ${asked}`);
  assert.ok(!asked.includes('shop_company'), `asked again: ${asked}`);

  // Another filter, chosen in the page, is asked of the API as always.
  await page.getByLabel('Categoría').selectOption('cases');
  await page.waitForURL(/categoria=cases/);
  await page.waitForResponse((response) => response.url().includes('/rest/v1/products'));
  assertNoProblems(page);
  await page.context().close();
});

test('the landing shows its featured models from the page itself', async () => {
  const { page, asked } = await recorded('mobile');
  await page.goto('/');
  await page.locator('#productos').getByRole('heading', { level: 3 }).first().waitFor();
  await page.waitForLoadState('networkidle');
  assert.ok(!asked.includes('products'), `asked again: ${asked}`);
  assert.equal(await supabaseLoadedAt(page), null, 'a signed-out landing needs no supabase-js');
  assertNoProblems(page);
  await page.context().close();
});

test("the store's first cards show before supabase-js loads, which waits for the page's load event", async () => {
  const { page } = await recorded('mobile');
  await page.goto('/store');
  await page.locator('[data-product-card]').first().waitFor();
  // The filters' lists need it: it comes, once the first cards' pictures are in.
  await page.waitForFunction((file) => performance.getEntriesByType('resource').some((entry) => new URL(entry.name).pathname === file), supabaseChunk);
  const loadedAt = await supabaseLoadedAt(page);
  const loadEvent = await page.evaluate(() => performance.getEntriesByType('navigation')[0].loadEventStart);
  assert.ok(loadEvent > 0 && loadedAt >= loadEvent, `supabase-js at ${loadedAt} ms, the load event at ${loadEvent} ms`);
  assertNoProblems(page);
  await page.context().close();
});

test('store cards show their stock as the shop settings say, from the inline settings', async () => {
  const stockShown = async () => {
    const { page, asked } = await recorded();
    await page.goto('/store');
    await page.locator('[data-product-card]').first().waitFor();
    const count = await page.locator('[data-product-card] [data-stock]').count();
    assert.ok(!asked.includes('shop_company'), `asked again: ${asked}`);
    await page.context().close();
    return count;
  };
  assert.ok((await stockShown()) > 0, 'stock shown by default');
  await shop.sql('update companies set display_product_stock = false');
  try {
    assert.equal(await stockShown(), 0, 'the toggle hides it');
  } finally {
    await shop.sql('update companies set display_product_stock = true');
  }
});

test('a signed-in staff member does not trust the inline page and asks the API', async () => {
  const staff = await newPage(browser, 'desktop', { baseURL: shop.url });
  await staff.goto('/auth');
  await staff.locator('input[type="email"]').fill(shop.staff.email);
  await staff.locator('input[type="password"]').fill(shop.staff.password);
  await staff.getByRole('button', { name: 'Iniciar sesión' }).click();
  await staff.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
  const { page, asked } = await recorded('desktop', staff.context());
  await page.goto('/store');
  await page.locator('[data-product-card]').first().waitFor();
  await page.waitForLoadState('networkidle');
  assert.ok(asked.includes('products'), `staff pages ask for the products: ${asked}`);
  await staff.context().close();
});

test('when the last page comes in, the focus goes to its first product', async () => {
  const page = await newPage(browser, 'desktop', { baseURL: shop.url });
  await page.goto('/store');
  // The first page, and with it the button, before asking whether it shows.
  await page.locator('[data-product-card]').first().waitFor();
  const more = page.getByRole('button', { name: 'Mostrar más productos' });
  await more.waitFor();
  let before = 0;
  while (await more.isVisible()) {
    before = await page.locator('[data-product-card]').count();
    await more.click();
    await page.waitForFunction((n) => document.querySelectorAll('[data-product-card]').length > n, before);
  }
  // The focus moves in an effect after the last page's render: wait for it
  // (a focus that never lands in the grid fails here, on the timeout).
  await page.waitForFunction(() => document.activeElement?.closest('li') != null, null, { timeout: 5000 }).catch(() => {});
  assert.ok(before > 0, 'the store has more than one page');
  const focused = await page.evaluate(() => {
    const item = document.activeElement?.closest('li');
    return item ? [...item.parentElement.children].indexOf(item) : -1;
  });
  assert.equal(focused, before, 'the first product of the last page');
  await page.context().close();
});
