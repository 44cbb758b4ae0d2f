// The admin area end to end, against the real gateway, database and storage:
// a fresh seeded shop per run (support/shop.mjs) and Debian's Chromium
// (support/browser.mjs). Each step builds on the previous one, so the steps
// run in order inside one suite.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertAccessible, assertNoProblems, launch, newPage, screenshot } from './support/browser.mjs';
import { startShop } from './support/shop.mjs';

// The harness's two sizes; screenshots are named after them.
const desktop = 'desktop';
const mobile = 'mobile';
const stamp = Date.now().toString(36);
const names = {
  brand: `Marca E2E ${stamp}`,
  uploaded: `Producto Subido E2E ${stamp}`,
  listed: `Producto Lista E2E ${stamp}`,
  linked: `Producto URL E2E ${stamp}`,
};

// A 2×2 red PNG, so the upload is a real image the browser can draw.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==',
  'base64',
);

let shop;
let browser;
let page;

/** Rows of a query run directly in PostgreSQL as superuser. */
async function rows(text, params) {
  const result = await shop.sql(text, params);
  return Array.isArray(result) ? result : result.rows;
}

async function scalar(text, params) {
  const [row] = await rows(text, params);
  return Object.values(row)[0];
}

async function countOf(text) {
  return Number(await scalar(text));
}

/** Waits for a condition that no single locator expresses, for up to 15 s. */
async function until(condition, timeout = 15_000) {
  const deadline = Date.now() + timeout;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeout} ms: ${condition}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A session for a user, straight from the auth API (password grant). */
async function passwordGrant(email, password) {
  const response = await fetch(`${shop.url}/auth/v1/token?grant_type=password`, {
    method: 'POST',
    headers: { apikey: shop.anonKey, 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  assert.equal(response.status, 200, `sign-in of ${email}: ${await response.clone().text()}`);
  return response.json();
}

/**
 * Signs in through /auth when the login form is there; otherwise (the public
 * side not merged yet) puts the session where supabase-js keeps it.
 */
async function signIn(target, email, password) {
  await target.goto(`${shop.url}/admin`);
  await target.waitForURL(/\/auth/);
  const emailInput = target.locator('input[type="email"]');
  // The login page is its own lazy chunk: give it time to render.
  const hasForm = await emailInput.waitFor({ timeout: 10_000 }).then(
    () => true,
    () => false,
  );
  if (hasForm) {
    await emailInput.fill(email);
    await target.locator('input[type="password"]').fill(password);
    await target.getByRole('button', { name: 'Iniciar sesión' }).click();
  } else {
    const session = await passwordGrant(email, password);
    const key = `sb-${new URL(shop.url).hostname.split('.')[0]}-auth-token`;
    await target.evaluate(([k, v]) => localStorage.setItem(k, v), [key, JSON.stringify(session)]);
    await target.goto(`${shop.url}/admin`);
  }
  await target.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
}

// Radix's toast viewport: a region named after its hotkey, 'Notifications (F8)'.
// Behind an open modal it is hidden from the accessibility tree but still on screen.
const toastRegion = () => page.getByRole('region', { name: /Notifica/, includeHidden: true });

/** Closes the toast on screen, if any and if no modal covers it. */
async function closeToast() {
  const close = page.getByRole('region', { name: /Notifica/ }).getByRole('button', { name: 'Cerrar' });
  if (await close.count()) {
    await close.first().click();
    await close.first().waitFor({ state: 'detached' });
  }
}

/**
 * Runs an action that ends in a toast and waits for that toast. A toast left
 * from the step before (they stay 5 s) is closed first, so an identical one
 * (two saves in a row) cannot answer for the new action.
 */
async function withToast(text, action) {
  await closeToast();
  await action();
  await toastRegion().getByText(text, { exact: true }).first().waitFor();
}

/**
 * Submits a form dialog and waits for it to close, which it does only after a
 * successful save: behind a modal the toasts are out of reach, so a toast left
 * from the step before could not be closed first.
 */
async function submitDialog(dialog, button, text) {
  await withToast(text, async () => {
    await dialog.getByRole('button', { name: button }).click();
    await dialog.waitFor({ state: 'detached' });
  });
}

/** Anonymous GET of the store's product call (status true, in stock), by name. */
async function storeLists(name) {
  const url = new URL(`${shop.url}/rest/v1/products`);
  url.searchParams.set('select', '*');
  url.searchParams.set('status', 'eq.true');
  url.searchParams.set('quantity', 'gt.0');
  url.searchParams.set('name', `ilike.*${name}*`);
  const response = await fetch(url, { headers: { apikey: shop.anonKey } });
  assert.equal(response.status, 200);
  return (await response.json()).length > 0;
}

/** The public store's search, when the store page has one (it is built on the public side). */
async function storeSearch(name) {
  const store = await newPage(browser, desktop);
  try {
    await store.goto(`${shop.url}/store`);
    const search = store.getByRole('searchbox').or(store.getByPlaceholder(/buscar/i)).first();
    const hasSearch = await search.waitFor({ timeout: 10_000 }).then(
      () => true,
      () => false,
    );
    if (!hasSearch) {
      await store.close();
      return null;
    }
    // The store is served as HTML and hydrated after it: what is typed
    // before React owns the box is lost (its value is the app's state), so
    // wait for React to attach its fiber to it.
    await until(() => search.evaluate((box) => Object.keys(box).some((key) => key.startsWith('__reactFiber'))));
    await search.fill(name);
    return store;
  } catch (error) {
    await store.close();
    throw error;
  }
}

function productDialog(title) {
  return page.getByRole('dialog', { name: title });
}

async function openCategory(label) {
  await page.goto(`${shop.url}/admin/products`);
  await page.getByRole('button', { name: `Ver Productos de ${label}` }).click();
  return page.getByRole('dialog', { name: `Productos de ${label}` });
}

async function fillProduct(dialog, { name, price, quantity }) {
  await dialog.getByLabel('Nombre').fill(name);
  await dialog.getByLabel('Descripción').fill(`Creado por la prueba del panel (${stamp}).`);
  await dialog.getByLabel('Precio').fill(price);
  await dialog.getByLabel('Cantidad').fill(quantity);
  await dialog.getByLabel('Categoría', { exact: true }).selectOption('celulares');
  await dialog.getByLabel('Condición').selectOption('nuevo');
  await dialog.getByLabel('Color').fill('Negro');
  await dialog.getByLabel('Marca').selectOption({ label: names.brand });
}

describe('the admin area', { concurrency: false }, () => {
  let staffId;

  before(async () => {
    shop = await startShop();
    browser = await launch();
    page = await newPage(browser, desktop);
    staffId = await scalar('select id::text from auth.users where email = $1', [shop.staff.email]);
  });

  after(async () => {
    await browser?.close();
    await shop?.stop();
  });

  test('a signed-out visitor is sent to /auth; the staff user signs in', async () => {
    await signIn(page, shop.staff.email, shop.staff.password);
    const sidebar = page.getByRole('complementary', { name: 'Barra lateral' });
    await sidebar.getByText(shop.staff.email).waitFor();
  });

  test('the dashboard shows the counts PostgreSQL gives', async () => {
    const visible = "from public.products where status is distinct from false and quantity > 0";
    const expected = {
      Productos: await countOf(`select count(*) ${visible}`),
      'Productos Nuevos': await countOf(`select count(*) ${visible} and created_at >= now() - interval '30 days'`),
      'Marcas Activas': await countOf('select count(*) from public.brands where status'),
      'Productos Destacados': await countOf(`select count(*) ${visible} and featured`),
    };
    const categories = await countOf('select count(*) from public.product_categories');
    for (const [title, value] of Object.entries(expected)) {
      const shown = await page.getByTestId(`stat-${title}`).textContent();
      assert.equal(Number(shown.replace(/\D/g, '')), value, title);
    }
    await page.getByText(`${categories} categorías`).waitFor();
    await page.getByText('En promoción').waitFor();
    await screenshot(page, 'admin-dashboard');
    await assertAccessible(page);
  });

  test('creates a brand, after the form refuses empty fields', async () => {
    await page.goto(`${shop.url}/admin/brands`);
    await page.getByRole('button', { name: 'Agregar marca' }).click();
    const dialog = page.getByRole('dialog', { name: 'Nueva marca' });
    await dialog.getByRole('button', { name: 'Crear' }).click();
    await dialog.getByText('El nombre es requerido').waitFor();
    await dialog.getByText('La descripción es requerida').waitFor();
    await screenshot(page, 'admin-brand-form');
    await assertAccessible(page);
    await dialog.getByLabel('Nombre').fill(names.brand);
    await dialog.getByLabel('Descripción').fill('Marca creada por la prueba del panel');
    assert.equal(await dialog.getByLabel('Marca activa').isChecked(), true);
    await submitDialog(dialog, 'Crear', 'Marca creada correctamente');
    await page.getByRole('heading', { name: names.brand }).waitFor();
    // A click on the toast's close button would close the menu too.
    await closeToast();
    await page.getByRole('button', { name: `Acciones de ${names.brand}` }).click();
    await page.getByRole('menuitem', { name: 'Desactivar' }).waitFor();
    await page.getByRole('menuitem', { name: 'Editar' }).waitFor();
    await screenshot(page, 'admin-brand-menu');
    await assertAccessible(page);
    await withToast('Marca desactivada', () => page.getByRole('menuitem', { name: 'Desactivar' }).click());
    assert.equal(await scalar('select status from public.brands where name = $1', [names.brand]), false);
    await closeToast();
    await page.getByRole('button', { name: `Acciones de ${names.brand}` }).click();
    await withToast('Marca activada', () => page.getByRole('menuitem', { name: 'Activar' }).click());
    const [toggled] = await rows(
      'select status, updated_by::text as updated_by, updated_at from public.brands where name = $1',
      [names.brand],
    );
    assert.equal(toggled.status, true);
    assert.equal(toggled.updated_by, staffId);
    assert.ok(toggled.updated_at);
    await page.getByText('Modificado el').first().waitFor();
    const [brand] = await rows('select status, created_by::text as created_by from public.brands where name = $1', [names.brand]);
    assert.equal(brand.status, true);
    assert.equal(brand.created_by, staffId);
    await screenshot(page, 'admin-brands');
    await assertAccessible(page);
  });

  test('the product form shows each validation message', async () => {
    await page.goto(`${shop.url}/admin/products`);
    await page.getByTestId('count-celulares').waitFor();
    await screenshot(page, 'admin-products');
    await assertAccessible(page);
    await page.getByRole('button', { name: 'Agregar producto' }).click();
    const dialog = productDialog('Nuevo producto');
    await dialog.getByLabel('Cantidad').fill('-1');
    await dialog.getByRole('button', { name: 'Crear' }).click();
    for (const message of [
      'El nombre es requerido',
      'La descripción es requerida',
      'El precio debe ser mayor a 0',
      'La cantidad no puede ser negativa',
      'La categoría es requerida',
      'La condición es requerida',
      'Debe seleccionar una imagen de la lista',
    ]) {
      await dialog.getByText(message).waitFor();
    }
    await screenshot(page, 'admin-product-form-errors');
    await assertAccessible(page);
    await dialog.getByLabel('Nombre').fill('x');
    assert.equal(await dialog.getByText('El nombre es requerido').count(), 0, 'editing clears the error');

    await dialog.getByRole('radio', { name: 'URL' }).click();
    await dialog.getByRole('button', { name: 'Crear' }).click();
    await dialog.getByText('La URL de la imagen es requerida').waitFor();
    await dialog.getByLabel('URL de la imagen').fill(`${shop.url}/storage/v1/object/public/store-products/products/no-existe.png`);
    await dialog.getByText('Error al cargar', { exact: true }).waitFor();
    await dialog.getByRole('radio', { name: 'Subir archivo' }).click();
    await dialog.getByRole('button', { name: 'Crear' }).click();
    await dialog.getByText('Debe seleccionar un archivo para subir').waitFor();
    await dialog.getByLabel('Archivo de imagen').setInputFiles({
      name: 'notas.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('no soy una imagen'),
    });
    await dialog.getByText('No se pudo cargar la imagen. Verifica que el archivo sea válido.').waitFor();
    await dialog.getByRole('button', { name: 'Cancelar' }).click();
    assert.equal(await countOf("select count(*) from public.products where name = 'x'"), 0);
  });

  test('creates a product with an uploaded PNG, which the store shows', async () => {
    await page.getByRole('button', { name: 'Agregar producto' }).click();
    const dialog = productDialog('Nuevo producto');
    await fillProduct(dialog, { name: names.uploaded, price: '125000000', quantity: '7' });
    assert.match((await dialog.getByLabel('Precio').inputValue()).replace(/\s/g, ' '), /^\$ 1\.250\.000,00$/);
    await dialog.getByRole('radio', { name: 'Subir archivo' }).click();
    await dialog.getByLabel('Archivo de imagen').setInputFiles({ name: 'foto.png', mimeType: 'image/png', buffer: PNG });
    await dialog.getByRole('img', { name: 'Vista previa de la imagen' }).waitFor();
    await screenshot(page, 'admin-product-form');
    await assertAccessible(page);
    await submitDialog(dialog, 'Crear', 'Producto creado');

    const [product] = await rows(
      `select price::text as price, quantity, link_image, link_image_s3, upload_file, created_by::text as created_by, created_at
         from public.products where name = $1`,
      [names.uploaded],
    );
    assert.equal(Number(product.price), 1250000);
    assert.equal(Number(product.quantity), 7);
    assert.equal(product.link_image, null);
    assert.equal(product.upload_file, true);
    assert.equal(product.created_by, staffId);
    assert.ok(product.created_at);
    assert.match(product.link_image_s3, /\/storage\/v1\/object\/public\/store-products\/products\/\d+-[a-z0-9]+\.png$/);
    const object = new URL(product.link_image_s3).pathname.split('/store-products/')[1];
    assert.equal(
      await countOf(`select count(*) from storage.objects where bucket_id = 'store-products' and name = '${object.replace(/'/g, "''")}'`),
      1,
    );

    const image = await fetch(`${shop.url}${new URL(product.link_image_s3).pathname}`);
    assert.equal(image.status, 200);
    assert.deepEqual(Buffer.from(await image.arrayBuffer()), PNG);
    assert.equal(await storeLists(names.uploaded), true);

    const store = await storeSearch(names.uploaded);
    if (store) {
      // The search narrows the catalogue to the one product (after its debounce).
      await until(async () => (await store.getByText('Consultar disponibilidad', { exact: true }).count()) === 1);
      await store.getByText(names.uploaded).first().waitFor();
      // The card asks the gateway for the size it shows (320 px, and 640 for
      // dense screens), and the browser draws what comes back.
      const image = store.locator(`img[src*="/storage/v1/render/image/public/store-products/products/"]`).first();
      const src = await image.getAttribute('src');
      assert.ok(src.includes(`/store-products/${object}?width=320&height=320&resize=contain`), `store image ${src}`);
      const srcset = await image.getAttribute('srcset');
      assert.match(srcset, /\?width=320&height=320&resize=contain 1x, .*\?width=640&height=640&resize=contain 2x$/);
      await until(async () => (await image.evaluate((el) => el.complete && el.naturalWidth)) > 0);
      await screenshot(store, 'store-with-uploaded-product');
      await assertAccessible(store);
      await store.close();
    }
  });

  test('creates a product from the predefined list and one from a URL', async () => {
    await page.getByRole('button', { name: 'Agregar producto' }).click();
    let dialog = productDialog('Nuevo producto');
    await fillProduct(dialog, { name: names.listed, price: '89900000', quantity: '3' });
    await dialog.getByLabel('Categoría de imagen').selectOption('Samsung');
    await dialog.getByRole('radio', { name: 'Samsung Galaxy A16 Negro' }).click();
    await submitDialog(dialog, 'Crear', 'Producto creado');
    let [product] = await rows('select link_image, link_image_s3, upload_file from public.products where name = $1', [names.listed]);
    assert.deepEqual(
      { ...product },
      { link_image: '/assets/samsung/galaxy-a16/negro.svg', link_image_s3: null, upload_file: false },
    );

    await page.getByRole('button', { name: 'Agregar producto' }).click();
    dialog = productDialog('Nuevo producto');
    await fillProduct(dialog, { name: names.linked, price: '5000000', quantity: '0' });
    const link = `${shop.url}/assets/apple/iphone-16/negro.svg`;
    await dialog.getByRole('radio', { name: 'URL' }).click();
    await dialog.getByLabel('URL de la imagen').fill(link);
    await submitDialog(dialog, 'Crear', 'Producto creado');
    [product] = await rows('select link_image, link_image_s3, upload_file, quantity from public.products where name = $1', [names.linked]);
    assert.equal(product.link_image, link);
    assert.equal(product.link_image_s3, null);
    assert.equal(product.upload_file, false);
    assert.equal(Number(product.quantity), 0);
  });

  test('edits a price from the category table', async () => {
    const dialog = await openCategory('Celulares');
    await dialog.getByPlaceholder('Buscar productos...').fill(names.listed);
    // Phones get cards and wider screens the table: only one of them is visible.
    await dialog.getByRole('row', { name: new RegExp(names.listed) }).waitFor();
    await dialog.getByText(/de 1 productos$/).waitFor();
    await screenshot(page, 'admin-category-products');
    await assertAccessible(page);
    await dialog.getByRole('button', { name: `Editar ${names.listed}` }).click();
    const form = productDialog('Editar producto');
    assert.equal(await form.getByRole('radio', { name: 'Samsung Galaxy A16 Negro' }).getAttribute('aria-checked'), 'true');
    await form.getByLabel('Precio').fill('99900000');
    await submitDialog(form, 'Actualizar', 'Producto actualizado');
    const [product] = await rows(
      'select price::text as price, updated_by::text as updated_by, updated from public.products where name = $1',
      [names.listed],
    );
    assert.equal(Number(product.price), 999000);
    assert.equal(product.updated_by, staffId);
    assert.ok(product.updated);
    await dialog.getByRole('cell', { name: /^\$\s999\.000$/ }).waitFor();
  });

  test('deactivates a product, which leaves the public store', async () => {
    const dialog = page.getByRole('dialog', { name: 'Productos de Celulares' });
    await dialog.getByPlaceholder('Buscar productos...').fill(names.uploaded);
    await withToast('Producto desactivado', () => dialog.getByRole('button', { name: `Desactivar ${names.uploaded}` }).click());
    await dialog.getByRole('button', { name: `Activar ${names.uploaded}` }).waitFor();
    assert.equal(await scalar('select status from public.products where name = $1', [names.uploaded]), false);
    assert.equal(await storeLists(names.uploaded), false);
    const store = await storeSearch(names.uploaded);
    if (store) {
      // Searched by its name, the store finds nothing once the debounced search has run.
      await until(async () => (await store.getByText('Consultar disponibilidad', { exact: true }).count()) === 0);
      assert.equal(await store.getByText(names.uploaded).count(), 0);
      await store.close();
    }
    await page.keyboard.press('Escape');
  });

  test('settings persist across a reload', async () => {
    await page.goto(`${shop.url}/admin/settings`);
    const general = page.getByRole('form', { name: 'General' });
    await general.getByLabel('Nombre de la tienda').fill(`Tienda E2E ${stamp}`);
    await general.getByLabel('Teléfono').fill('+57 311 000 0000');
    await withToast('Configuración guardada', () => general.getByRole('button', { name: 'Guardar Cambios' }).click());
    const usersSwitch = page.getByRole('switch', { name: 'Mostrar usuarios' });
    const before = (await usersSwitch.getAttribute('aria-checked')) === 'true';
    await usersSwitch.click();
    assert.equal(
      await scalar('select display_users from public.companies order by id limit 1'),
      before,
      'a toggle stays local until saved',
    );
    await withToast('Configuración guardada', () => page.getByRole('button', { name: 'Guardar Configuración' }).click());
    await screenshot(page, 'admin-settings');
    await assertAccessible(page);

    await page.reload();
    await page.getByLabel('Nombre de la tienda').waitFor();
    assert.equal(await page.getByLabel('Nombre de la tienda').inputValue(), `Tienda E2E ${stamp}`);
    assert.equal(await page.getByLabel('Teléfono').inputValue(), '+57 311 000 0000');
    assert.equal(await page.getByRole('switch', { name: 'Mostrar usuarios' }).getAttribute('aria-checked'), String(!before));
    const [company] = await rows(
      'select name, phone, display_users, updated_by::text as updated_by from public.companies order by id limit 1',
    );
    assert.equal(company.name, `Tienda E2E ${stamp}`);
    assert.equal(company.display_users, !before);
    assert.equal(company.updated_by, staffId);
  });

  test('every admin screen at phone width', async () => {
    const phone = await newPage(browser, mobile);
    try {
      const session = await passwordGrant(shop.staff.email, shop.staff.password);
      await phone.goto(`${shop.url}/auth`);
      const key = `sb-${new URL(shop.url).hostname.split('.')[0]}-auth-token`;
      await phone.evaluate(([k, v]) => localStorage.setItem(k, v), [key, JSON.stringify(session)]);
      for (const [path, name, heading] of [
        ['/admin', 'dashboard', 'Dashboard'],
        ['/admin/products', 'products', 'Productos'],
        ['/admin/brands', 'brands', 'Marcas'],
        ['/admin/settings', 'settings', 'Configuración'],
      ]) {
        await phone.goto(`${shop.url}${path}`);
        await phone.getByRole('heading', { name: heading, level: 1 }).waitFor();
        await phone.waitForLoadState('networkidle');
        await screenshot(phone, `admin-${name}`);
        await assertAccessible(phone);
      }
      await phone.getByRole('button', { name: 'Abrir menú' }).click();
      await phone.getByRole('dialog', { name: 'Menú' }).getByRole('link', { name: 'Productos' }).click();
      await phone.getByRole('button', { name: 'Ver Productos de Celulares' }).click();
      await phone.getByRole('dialog', { name: 'Productos de Celulares' }).getByRole('button', { name: /^Editar / }).first().waitFor();
      await screenshot(phone, 'admin-category-products');
      await assertAccessible(phone);
      await phone.keyboard.press('Escape');
      await phone.getByRole('button', { name: 'Agregar producto' }).click();
      await screenshot(phone, 'admin-product-form');
      await assertAccessible(phone);
      await phone.keyboard.press('Escape');
      await phone.getByRole('button', { name: 'Abrir menú' }).click();
      await screenshot(phone, 'admin-menu');
      await assertAccessible(phone);
      await phone.getByRole('dialog', { name: 'Menú' }).getByRole('link', { name: 'Marcas' }).click();
      await phone.getByRole('button', { name: 'Agregar marca' }).click();
      await phone.getByRole('dialog', { name: 'Nueva marca' }).waitFor();
      await screenshot(phone, 'admin-brand-form');
      await assertAccessible(phone);
      assertNoProblems(phone);
    } finally {
      await phone.close();
    }
  });

  test('signs out', async () => {
    await page.getByRole('complementary', { name: 'Barra lateral' }).getByRole('button', { name: 'Cerrar sesión' }).click();
    await page.waitForURL(/\/auth/);
    await page.goto(`${shop.url}/admin/settings`);
    await page.waitForURL(/\/auth/);
  });

  test('a user without a company sees why and cannot change another company', async () => {
    const email = `sin-empresa-${stamp}@tienda.example`;
    const password = `clave-${stamp}-segura`;
    // Through the gateway's admin API with the service_role key; its profile has no company.
    const user = await shop.createUser({ email, password });
    await rows('insert into public.profiles (user_id, full_name, company_id) values ($1, $2, null)', [
      user.id,
      'Usuario Sin Empresa',
    ]);

    const other = await newPage(browser, desktop);
    try {
      await signIn(other, email, password);
      await other.getByText('Usuario Sin Empresa').first().waitFor();
      await other.goto(`${shop.url}/admin/settings`);
      await other.getByText('Error al cargar configuración').waitFor();
      await other.getByText('Usuario no está asociado a ninguna empresa').waitFor();
      await screenshot(other, 'admin-settings-no-company');
      await assertAccessible(other);
    } finally {
      await other.close();
    }

    const before = await rows('select id, name, phone, updated_at::text as updated_at from public.companies order by id');
    const { access_token: token } = await passwordGrant(email, password);
    for (const company of before) {
      const response = await fetch(`${shop.url}/rest/v1/companies?id=eq.${company.id}`, {
        method: 'PATCH',
        headers: {
          apikey: shop.anonKey,
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          prefer: 'return=representation',
        },
        body: JSON.stringify({ name: 'Empresa ajena modificada', phone: '000' }),
      });
      if (response.ok) assert.deepEqual(await response.json(), [], 'no row changed');
      else assert.ok([401, 403, 404].includes(response.status), `status ${response.status}`);
    }
    const afterRows = await rows('select id, name, phone, updated_at::text as updated_at from public.companies order by id');
    assert.deepEqual(afterRows.map((row) => ({ ...row })), before.map((row) => ({ ...row })));
  });
});
