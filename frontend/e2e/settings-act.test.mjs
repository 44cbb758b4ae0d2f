// Configuración acts on the shop: the company's name, e-mail and
// telephone saved there are what the public site and the sidebar show (read
// by visitors through the view public.shop_company), and the three toggles
// take effect: product stock in the store's drawer and on its cards, category stock counts in
// the admin products grid, user names on brand cards.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertNoProblems, launch, newPage } from './support/browser.mjs';
import { startShop } from './support/shop.mjs';

let shop;
let browser;
let admin;

before(async () => {
  shop = await startShop();
  browser = await launch();
  admin = await newPage(browser, 'desktop', { baseURL: shop.url });
  await admin.goto('/auth');
  await admin.locator('input[type="email"]').fill(shop.staff.email);
  await admin.locator('input[type="password"]').fill(shop.staff.password);
  await admin.getByRole('button', { name: 'Iniciar sesión' }).click();
  await admin.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
});

after(async () => {
  await browser?.close();
  await shop?.stop();
});

async function saved(action) {
  await action();
  await admin.getByText('Configuración guardada', { exact: true }).first().waitFor();
}

/** A visitor's fresh page at `path`. */
async function visit(path) {
  const page = await newPage(browser, 'desktop', { baseURL: shop.url });
  await page.goto(path);
  return page;
}

test('the name, e-mail and telephone saved in Configuración are what the public site and the sidebar show', async () => {
  await admin.goto('/admin/settings');
  const general = admin.getByRole('form', { name: 'General' });
  await general.getByLabel('Nombre de la tienda').fill('Celulares del Llano');
  await general.getByLabel('Teléfono').fill('+57 320 555 0101');
  await general.getByLabel(/Correo/).fill('hola@llano.example');
  await saved(() => general.getByRole('button', { name: 'Guardar Cambios' }).click());
  await admin.getByText('Celulares del Llano', { exact: true }).first().waitFor();

  const home = await visit('/');
  await home.getByRole('banner').getByText('Celulares del Llano').waitFor();
  const footer = home.getByRole('contentinfo');
  await footer.getByText('hola@llano.example').waitFor();
  await footer.getByText('+57 320 555 0101').waitFor();
  await home.locator('#contacto').getByText('hola@llano.example').waitFor();
  assertNoProblems(home);
  await home.context().close();

  const store = await visit('/store');
  await store.getByRole('banner').getByText('Celulares del Llano').waitFor();
  await store.getByRole('contentinfo').getByText('hola@llano.example').waitFor();
  await store.context().close();
});

test('the three toggles take effect where they say', async () => {
  // Whether the drawer and the cards show the stock. The shop's settings come
  // inside the page with the first products (gateway/src/first_screen/mod.rs).
  const drawerStock = async () => {
    const store = await visit('/store');
    await store.locator('[data-product-card] button').first().click();
    const dialog = store.getByRole('dialog', { name: 'Detalles del producto' });
    await dialog.getByText('Categoría').waitFor();
    const shown = await dialog.getByText('Disponibilidad', { exact: true }).count();
    const onCards = await store.locator('[data-product-card] [data-stock]').count();
    await store.context().close();
    assert.equal(shown > 0, onCards > 0, 'cards and drawer follow the same setting');
    return shown > 0;
  };
  assert.equal(await drawerStock(), true, 'stock shows by default');

  await admin.goto('/admin/settings');
  for (const name of ['Mostrar stock por categoría', 'Mostrar stock de productos', 'Mostrar usuarios']) {
    const toggle = admin.getByRole('switch', { name });
    if ((await toggle.getAttribute('aria-checked')) === 'true') await toggle.click();
  }
  await saved(() => admin.getByRole('button', { name: 'Guardar Configuración' }).click());
  const [company] = await shop.sql(
    'select display_category_stock, display_product_stock, display_users from public.shop_company',
  ).then((result) => (Array.isArray(result) ? result : result.rows));
  assert.deepEqual(company, { display_category_stock: false, display_product_stock: false, display_users: false });

  assert.equal(await drawerStock(), false, "no stock in the store's drawer");

  await admin.goto('/admin/products');
  await admin.getByRole('button', { name: /^Ver Productos de / }).first().waitFor();
  await admin.waitForLoadState('networkidle');
  assert.equal(await admin.getByText(/^\d+ productos?$/).count(), 0, 'no counts on the category cards');

  await admin.goto('/admin/brands');
  await admin.getByText('Creado el').first().waitFor();
  await admin.waitForLoadState('networkidle');
  assert.equal(await admin.getByText(/ por /).count(), 0, 'no user names on the brand cards');
});
