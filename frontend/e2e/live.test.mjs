// Live updates through /realtime/v1: a change made in one tab, or
// committed by anyone, shows in another without a reload: the admin's brand
// list and dashboard counts, and the store's stock in the product drawer.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertNoProblems, launch, newPage } from './support/browser.mjs';
import { startShop } from './support/shop.mjs';

const stamp = Date.now().toString(36);

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

/**
 * Resolves once the page's realtime socket confirmed a `postgres_changes`
 * subscription (Realtime's "Subscribed to PostgreSQL" system message), so that
 * a change committed after it is sent to the page. Set up before the page loads.
 */
function subscribed(page, channel) {
  return new Promise((resolve) => {
    page.on('websocket', (socket) => {
      if (!socket.url().includes('/realtime/v1/websocket')) return;
      socket.on('framereceived', ({ payload }) => {
        const text = String(payload);
        if (text.includes('Subscribed to PostgreSQL') && text.includes(`realtime:shop:${channel}`)) resolve();
      });
    });
  });
}

/**
 * A staff member's tab, signed in, at `path`, in its own browser context as
 * another person's would be; `watching` resolves once its page subscribed
 * to the channel named.
 */
async function staffTab(path, channel) {
  const page = await newPage(browser, 'desktop', { baseURL: shop.url });
  const watching = subscribed(page, channel);
  await page.goto('/auth');
  await page.locator('input[type="email"]').fill(shop.staff.email);
  await page.locator('input[type="password"]').fill(shop.staff.password);
  await page.getByRole('button', { name: 'Iniciar sesión' }).click();
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
  if (path !== '/admin') await page.getByRole('link', { name: path === '/admin/brands' ? 'Marcas' : 'Productos' }).first().click();
  return { page, watching };
}

async function statValue(page, title) {
  return Number((await page.getByTestId(`stat-${title}`).textContent()).replace(/\D/g, ''));
}

test('a brand created in one tab appears in another tab and in the dashboard counts, without a reload', async () => {
  const { page: list, watching: listWatching } = await staffTab('/admin/brands', 'admin-brands');
  await list.getByRole('button', { name: 'Agregar marca' }).waitFor();
  const { page: dashboard, watching } = await staffTab('/admin', 'dashboard');
  await dashboard.getByTestId('stat-Marcas Activas').waitFor();
  await Promise.all([listWatching, watching]);
  const before = await statValue(dashboard, 'Marcas Activas');

  const { page: editor } = await staffTab('/admin/brands', 'admin-brands');
  const name = `Marca en vivo ${stamp}`;
  await editor.getByRole('button', { name: 'Agregar marca' }).click();
  const dialog = editor.getByRole('dialog', { name: 'Nueva marca' });
  await dialog.getByLabel('Nombre').fill(name);
  await dialog.getByLabel('Descripción').fill('Creada en otra pestaña');
  await dialog.getByRole('button', { name: 'Crear' }).click();
  await dialog.waitFor({ state: 'detached' });

  await list.getByRole('heading', { name }).waitFor({ timeout: 10_000 });
  await dashboard.waitForFunction(
    (expected) => Number(document.querySelector('[data-testid="stat-Marcas Activas"]')?.textContent?.replace(/\D/g, '')) === expected,
    before + 1,
    { timeout: 10_000 },
  );
  assert.equal(await statValue(dashboard, 'Marcas Activas'), before + 1);
  assertNoProblems(list);
  assertNoProblems(dashboard);
  for (const page of [list, dashboard, editor]) await page.context().close();
});

test('the store marks a product out of stock while its drawer is open, without a reload', async () => {
  const [product] = await shop.sql(
    'select id from public.products where status is distinct from false and quantity > 1 order by id limit 1',
  );
  assert.ok(product, 'the seed has a product in stock');
  const store = await newPage(browser, 'desktop', { baseURL: shop.url });
  const watching = subscribed(store, 'store-products');
  await store.goto(`/store?producto=${product.id}`);
  const drawer = store.getByRole('dialog', { name: 'Detalles del producto' });
  await drawer.getByText(/unidades? disponibles?/).waitFor();
  await watching;

  await shop.sql('update public.products set quantity = 0 where id = $1', [product.id]);
  await drawer.getByText('Sin stock').waitFor({ timeout: 10_000 });
  assertNoProblems(store);
  await store.context().close();
});
