// The landing and the store come as HTML with their first cards in it: the
// build pre-renders the pages (frontend/scripts/prerender.mjs) and the gateway
// fills the cards from the catalogue it puts into the page
// (gateway/src/first_screen/cards.rs). The cards must be exactly React's, or
// hydration would throw them away: these tests compare the gateway's with
// React's own rendering of the same rows, and watch the browser keep them.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { assertNoProblems, launch, newPage } from './support/browser.mjs';
import { startShop } from './support/shop.mjs';
import { classesOf, criticalCss } from '../scripts/critical-css.mjs';

const ssrBundle = fileURLToPath(new URL('../dist-ssr/prerender.js', import.meta.url));

let shop;
let browser;
let react;

before(async () => {
  assert.ok(existsSync(ssrBundle), 'npm run build writes dist-ssr/prerender.js');
  react = await import(pathToFileURL(ssrBundle).href);
  shop = await startShop({ args: ['--shop-whatsapp-number', '573001234567'] });
  browser = await launch();
  // An uploaded picture (a 1x1 PNG) whose name needs encoding.
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');
  const upload = await fetch(`${shop.url}/storage/v1/object/store-products/modelos/x%20y.png`, {
    method: 'POST',
    headers: { apikey: shop.serviceRoleKey, authorization: `Bearer ${shop.serviceRoleKey}`, 'content-type': 'image/png' },
    body: png,
  });
  assert.equal(upload.status, 200, await upload.text());
  // Rows of every kind a card shows differently, among the first ones each page lists.
  await shop.sql(`
    with first as (
      select id, row_number() over (order by featured desc nulls last, price desc, id) as n
        from products where status is not false and quantity > 0
    )
    update products p set
      name = case n when 1 then 'Galaxy "S24" & <Ultra> ñ''s' else p.name end,
      description = case n when 1 then 'Pantalla <b>6,8"</b> & más' when 2 then null else p.description end,
      quantity = case n when 1 then 1 when 2 then 3 when 3 then 12 else p.quantity end,
      condition = case n when 2 then 'usado' when 3 then 'reacondicionado' else p.condition end,
      link_image = case n when 3 then '/assets/xiaomi/redmi-13c/azul.svg' else p.link_image end,
      link_image_s3 = case n when 3 then null
        when 4 then $1 || '/storage/v1/object/public/store-products/modelos/x%20y.png' else p.link_image_s3 end,
      brand_id = case n when 2 then null else p.brand_id end
    from first where p.id = first.id and n <= 4`, [shop.url]);
});

after(async () => {
  await browser?.close();
  await shop?.stop();
});

/** The page as the gateway sends it, before any script runs. */
async function served(path) {
  const response = await fetch(new URL(path, shop.url));
  assert.equal(response.status, 200);
  return response.text();
}

/** The catalogue and settings the gateway put into the page (gateway/src/first_screen/mod.rs). */
function inlineData(html) {
  const json = html.match(/<script type="application\/json" id="shop-first-screen">(.*?)<\/script>/s)?.[1];
  assert.ok(json, 'the page carries its data');
  return JSON.parse(json);
}

const between = (html, start, end) => {
  const from = html.indexOf(start);
  assert.ok(from >= 0, `the page has ${start}`);
  return html.slice(from, html.indexOf(end, from) + end.length);
};

/** React's rendering without the preloads it puts first (the build moves them into the head). */
const withoutPreloads = (markup) => markup.replace(/^(<link [^>]*\/>)*/, '');

const options = (data) => ({
  supabaseUrl: shop.url,
  whatsappNumber: '573001234567',
  showStock: data.company?.display_product_stock ?? true,
});

test('the store is served with its first cards as HTML, equal to what React renders for the same rows', async () => {
  for (const showStock of [true, false]) {
    await shop.sql('update companies set display_product_stock = $1', [showStock]);
    const html = await served('/store');
    assert.match(html, /<div id="root" data-first-screen="filled" data-prerendered="store">/);
    const data = inlineData(html);
    assert.equal(data.company.display_product_stock, showStock);
    const cards = [...between(html, '<section aria-labelledby="results-title"', '</section>').matchAll(/<article[\s\S]*?<\/article>/g)]
      .map((match) => match[0])
      .join('');
    assert.equal(cards, withoutPreloads(react.renderCards('store', data.catalogue.products, options(data))));
    assert.equal((html.match(/data-product-card/g) ?? []).length, data.catalogue.products.length);
    assert.ok(html.includes(`${data.catalogue.total} productos</p>`), 'the count is in the page');
  }
  await shop.sql('update companies set display_product_stock = true');
});

test('the landing is served with its featured models as HTML, equal to what React renders', async () => {
  const html = await served('/');
  assert.match(html, /<div id="root" data-first-screen="filled" data-prerendered="landing">/);
  const data = inlineData(html);
  assert.ok(data.catalogue.length > 0, 'the demo shop has featured models');
  const list = between(html, '<ul class="grid gap-6 sm:grid-cols-2 lg:grid-cols-3">', '</ul>');
  assert.equal(list, withoutPreloads(react.renderCards('featured', data.catalogue, options(data))));
  assert.ok(html.includes('>Modelos destacados</h2>'));
  assert.ok(!html.includes('__first_screen_shop_name__') && !html.includes('wa.me/1000000000001'), 'no placeholder is left');
  assert.ok(html.includes('https://wa.me/573001234567?text='), 'the chat links carry the shop number');
});

for (const path of ['/store', '/']) {
  test(`${path} carries the rules of every class its HTML uses, and links the whole stylesheet without waiting for it`, async () => {
    const html = await served(path);
    const inline = html.match(/<style>([\s\S]*?)<\/style>/)?.[1];
    assert.ok(inline, 'the page has its stylesheet inline');
    const href = html.match(/<link rel="stylesheet" crossorigin href="(\/static\/[^"]+\.css)" media="print" onload="this.media='all'">/)?.[1];
    assert.ok(href, 'the whole stylesheet is linked, not holding the first paint back');
    const full = await (await fetch(new URL(href, shop.url))).text();
    assert.ok(inline.length < full.length, 'only part of the stylesheet is inline');
    // Every class the page's HTML names (the gateway's cards too) whose rule
    // the whole stylesheet has, the inline part has.
    const missing = [...classesOf(html)].filter((name) => {
      const rule = criticalCss(full, new Set([name]));
      const none = criticalCss(full, new Set());
      return rule.length > none.length && criticalCss(inline, new Set([name])).length === criticalCss(inline, new Set()).length;
    });
    assert.deepEqual(missing, []);
  });

  test(`${path} looks the same before and after the whole stylesheet arrives`, async () => {
    const boxes = async (withStylesheet) => {
      const page = await newPage(browser, { width: 360, height: 780 }, { baseURL: shop.url });
      if (!withStylesheet) await page.route(/\/static\/[^/]+\.css$/, (route) => route.abort());
      // Without its scripts the page stays as the HTML drew it.
      await page.route(/\.js$/, (route) => route.abort());
      await page.goto(path, { waitUntil: 'load' });
      const result = await page.evaluate(() =>
        [...document.querySelectorAll('#root *')].map((element) => {
          const box = element.getBoundingClientRect();
          const style = getComputedStyle(element);
          return `${element.tagName} ${box.x},${box.y},${box.width},${box.height} ${style.color} ${style.backgroundColor} ${style.fontSize}`;
        }),
      );
      await page.context().close();
      return result;
    };
    assert.deepEqual(await boxes(false), await boxes(true));
  });
}

test('an address with filters, or a shop without the data, is served the plain page', async () => {
  const filtered = await served('/store?categoria=celulares');
  assert.ok(!filtered.includes('data-first-screen="filled"'));
  assert.ok(filtered.includes('id="shop-first-screen"'), 'its data is still in the page');
  const other = await served('/auth');
  assert.ok(!other.includes('data-prerendered'));
});

for (const path of ['/store', '/']) {
  test(`the browser hydrates the cards of ${path} that the gateway sent, without rendering them again`, async () => {
    const page = await newPage(browser, 'mobile', { baseURL: shop.url });
    // The app's entry waits until the served cards are marked.
    let release;
    const held = new Promise((resolve) => (release = resolve));
    await page.route(/\/static\/main-[\w-]+\.js$/, async (route) => {
      await held;
      await route.continue();
    });
    // The entry is a module script: DOMContentLoaded waits for it, the parsed cards do not.
    await page.goto(path, { waitUntil: 'commit' });
    const card = page.locator('[data-product-card]').first();
    await card.waitFor();
    await card.evaluate((element) => {
      window.__servedCard = element;
    });
    release();
    // React attaches its fiber to each node it hydrates.
    await page.waitForFunction(() => Object.keys(window.__servedCard).some((key) => key.startsWith('__reactFiber')));
    // supabase-js loads after the page's load event (the session, the filter
    // lists): nothing it changes may throw the hydrated page away.
    await page.waitForLoadState('networkidle');
    assert.ok(
      await page.evaluate(() => window.__servedCard === document.querySelector('[data-product-card]')),
      'the same element, kept by hydration',
    );
    assert.equal(await page.evaluate(() => window.__hydrationMismatches ?? 0), 0);
    if (path === '/store') {
      // Hydrated means working: a card opens its drawer.
      await page.locator('[data-product-card] button').first().click();
      await page.getByRole('dialog').waitFor();
    }
    assertNoProblems(page);
    await page.context().close();
  });
}
