// The store's state lives in its address: filters and the search
// are written into `/store?...`, a reload restores them, opening a product
// adds `producto=ID` and Back closes its drawer, and a product link opens its
// drawer even when the product is not on the first page.
import assert from 'node:assert/strict';
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

const drawer = (page) => page.getByRole('dialog', { name: 'Detalles del producto' });

test('a filtered store survives a reload and Back closes the product drawer', async () => {
  const page = await newPage(browser, { width: 360, height: 780 }, { baseURL: shop.url });
  await page.goto('/store');
  await page.locator('[data-product-card]').first().waitFor();
  await page.getByLabel('Categoría').selectOption('celulares');
  await page.waitForURL(/categoria=celulares/);
  const [{ count }] = await rows(
    `select count(*)::int as count from products where status and quantity > 0 and category = 'celulares'`,
  );
  await page.getByText(`${count} productos`).waitFor();

  await page.reload();
  await page.getByText(`${count} productos`).waitFor();
  // The products come inside the page; the list of categories is asked for.
  await page.getByLabel('Categoría').locator('option[value="celulares"]').waitFor({ state: 'attached' });
  assert.equal(await page.getByLabel('Categoría').inputValue(), 'celulares');

  const firstName = (await page.locator('[data-product-card] h3').first().textContent()).trim();
  await page.locator('[data-product-card] button').first().click();
  await drawer(page).getByRole('heading', { name: firstName }).waitFor();
  assert.match(page.url(), /producto=\d+/);
  assert.match(page.url(), /categoria=celulares/);

  await page.goBack();
  await drawer(page).waitFor({ state: 'detached' });
  assert.doesNotMatch(page.url(), /producto=/);
  assert.match(page.url(), /categoria=celulares/);
  assertNoProblems(page);
  await page.context().close();
});

test('a product link opens its drawer, even for a product past the first page', async () => {
  const [last] = await rows(
    `select id, name from products where status and quantity > 0
      order by featured desc nulls last, price desc, id desc limit 1`,
  );
  const page = await newPage(browser, { width: 1280, height: 900 }, { baseURL: shop.url });
  await page.goto(`/store?producto=${last.id}`);
  await drawer(page).getByRole('heading', { name: last.name }).waitFor();
  await drawer(page).getByRole('button', { name: /Cerrar/ }).first().click();
  await drawer(page).waitFor({ state: 'detached' });
  assert.equal(new URL(page.url()).search, '');
  assertNoProblems(page);
  await page.context().close();
});
