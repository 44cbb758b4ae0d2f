// The public side end to end, against the real gateway and database: a fresh
// seeded shop (support/shop.mjs) and Debian's Chromium (support/browser.mjs).
// What the pages list is compared with what PostgreSQL holds, and every chat
// link is decoded and compared with the message the spec describes.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { artifactsDir, assertAccessible, assertNoProblems, launch, newPage, screenshot } from './support/browser.mjs';
import { startShop } from './support/shop.mjs';

// The harness's two sizes (a 390 px phone, a 1366 px laptop) and the
// narrowest phone the layout supports.
const desktop = 'desktop';
const mobile = 'mobile';
const narrow = { width: 360, height: 780 };
const PAGE_SIZE = 20;

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

/** Rows of a query run directly in PostgreSQL. */
async function rows(text, params) {
  const result = await shop.sql(text, params);
  return Array.isArray(result) ? result : result.rows;
}

/** What the store may list: active, in stock, in the store's order. */
async function listable(where = 'true', params = []) {
  const found = await rows(
    `select p.name, p.price::float8 as price, p.quantity, b.name as brand
       from products p left join brands b on b.id = p.brand_id
      where p.status = true and p.quantity > 0 and (${where})
      order by p.featured desc nulls last, p.price desc, p.id`,
    params,
  );
  return found;
}

const cop = new Intl.NumberFormat('es-CO', { style: 'currency', currency: 'COP', minimumFractionDigits: 0, maximumFractionDigits: 0 });

/** The messages of src/lib/whatsapp.ts, as a visitor's chat receives them. */
const say = {
  credit: 'Hola, quiero aplicar a un crédito con mi cédula. ¿Me pueden dar más información?',
  productCredit: (name) => `Hola, quiero solicitar crédito para el ${name}.`,
  availability: (name) => `Hola, quiero consultar la disponibilidad de ${name}.`,
  productInfo: (name, price) => `Hola, me gustaría recibir más información sobre ${name} (${price}).`,
  contact: 'Hola, quiero más información sobre sus productos.',
  photoBooth: 'Hola, quiero información sobre los paquetes de cabina de fotos vintage.',
  photoBoothPackage: (name) => `Hola, quiero cotizar el paquete ${name} de la cabina de fotos vintage.`,
};

/** The prefilled text of a wa.me link, checking the link's shape on the way. */
function chatText(href) {
  const url = new URL(href);
  assert.equal(url.origin, 'https://wa.me');
  assert.match(url.pathname, /^\/\d{8,15}$/, `chat number in ${href}`);
  assert.deepEqual([...url.searchParams.keys()], ['text']);
  return url.searchParams.get('text');
}

async function hrefOf(locator) {
  return locator.getAttribute('href');
}

/** Scrolls through the page so lazy images load before a screenshot. */
async function loadLazyImages(page) {
  await page.evaluate(async () => {
    // 'instant': the page scrolls smoothly otherwise, and the shot would catch it midway.
    for (let y = 0; y < document.body.scrollHeight; y += 500) {
      window.scrollTo({ top: y, behavior: 'instant' });
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    window.scrollTo({ top: 0, behavior: 'instant' });
  });
  await page.waitForTimeout(300);
}

/**
 * A shot of what is on screen only: an open drawer or menu is fixed to the
 * viewport, and a full-page shot would stretch the list behind it.
 */
async function screenShot(page, name, label) {
  mkdirSync(artifactsDir, { recursive: true });
  await page.screenshot({ path: path.join(artifactsDir, `${name}-${label}.png`) });
}

async function names(page) {
  return page.locator('main article h3').allTextContents();
}

describe('the public side', () => {
  test('landing: featured models and every chat link', async () => {
    const page = await newPage(browser, desktop);
    await page.goto(`${shop.url}/`);
    await page.getByRole('heading', { name: 'Modelos destacados' }).waitFor();

    const featured = await rows(
      `select name from products where featured and status = true and quantity > 0 order by price desc, id limit 3`,
    );
    assert.equal(featured.length, 3);
    const cards = page.locator('#productos article');
    assert.deepEqual(await cards.locator('h3').allTextContents(), featured.map((r) => r.name));
    for (const [i, { name }] of featured.entries()) {
      const link = cards.nth(i).getByRole('link', { name: 'Solicitar Crédito' });
      assert.equal(chatText(await hrefOf(link)), say.productCredit(name));
    }

    assert.equal(chatText(await hrefOf(page.getByRole('link', { name: 'Aplicar Ahora' }))), say.credit);
    // The floating chat button shows once the hero is scrolled past.
    await page.getByRole('link', { name: 'Chatea con nosotros' }).scrollIntoViewIfNeeded();
    assert.equal(chatText(await hrefOf(page.getByRole('link', { name: 'Escríbenos por WhatsApp' }))), say.contact);
    assert.equal(chatText(await hrefOf(page.getByRole('link', { name: 'Chatea con nosotros' }))), say.contact);

    // The five questions, one open at a time.
    const questions = page.locator(`#preguntas-frecuentes button[aria-expanded]`);
    assert.equal(await questions.count(), 5);
    await questions.nth(1).click();
    await page.getByText('Solo tu cédula.', { exact: false }).waitFor();

    for (const label of ['Empresa', 'Productos', 'Testimonios', 'Preguntas frecuentes', 'Contacto']) {
      const href = await hrefOf(page.getByRole('navigation', { name: 'Secciones' }).getByRole('link', { name: label, exact: true }));
      assert.ok(await page.locator(href).count(), `section ${href}`);
    }
    await loadLazyImages(page);
    await screenshot(page, 'landing');
    await assertAccessible(page);

    // The store link of the header.
    await page.getByRole('navigation', { name: 'Secciones' }).getByRole('link', { name: 'Tienda' }).click();
    await page.waitForURL(`${shop.url}/store`);
    assertNoProblems(page);
    await page.context().close();
  });

  test('landing on a phone: the slide-in menu', async () => {
    const page = await newPage(browser, mobile);
    await page.goto(`${shop.url}/`);
    await page.getByRole('heading', { name: 'Modelos destacados' }).waitFor();
    await loadLazyImages(page);
    await screenshot(page, 'landing');
    await assertAccessible(page);

    await page.getByRole('button', { name: 'Abrir menú' }).click();
    const menu = page.getByRole('dialog', { name: 'Menú' });
    await menu.waitFor();
    await screenShot(page, 'landing-menu', 'mobile');
    await menu.getByRole('link', { name: 'Testimonios' }).click();
    await menu.waitFor({ state: 'detached' });
    await page.waitForFunction(() => document.activeElement?.id === 'testimonios');
    assertNoProblems(page);
    await page.context().close();
  });

  test('store: search, filters, pages, drawer; nothing inactive or out of stock', async () => {
    const page = await newPage(browser, desktop);
    await page.goto(`${shop.url}/store`);
    const all = await listable();
    const hidden = await rows(`select name from products where status is not true or quantity <= 0`);
    assert.ok(hidden.length > 0, 'the seed has inactive and sold-out products');
    const count = page.locator('main p[aria-live]');
    await count.filter({ hasText: `${all.length} productos` }).waitFor();
    assert.deepEqual(await names(page), all.slice(0, PAGE_SIZE).map((r) => r.name));

    // Every card asks for its own product.
    const cards = page.locator('main article');
    for (let i = 0; i < 3; i++) {
      const name = await cards.nth(i).locator('h3').textContent();
      const link = cards.nth(i).getByRole('link', { name: 'Consultar disponibilidad' });
      assert.equal(chatText(await hrefOf(link)), say.availability(name));
    }
    await loadLazyImages(page);
    await screenshot(page, 'store');
    await assertAccessible(page);

    // Search (debounced): the names matching, as the database says.
    await page.getByRole('searchbox', { name: 'Buscar productos' }).fill('galaxy');
    const galaxy = await listable(`p.name ilike $1`, ['%galaxy%']);
    await count.filter({ hasText: new RegExp(`^${galaxy.length} productos?$`) }).waitFor();
    assert.deepEqual(await names(page), galaxy.slice(0, PAGE_SIZE).map((r) => r.name));

    // A hidden product is not found by its name either.
    const sold = hidden[0].name;
    await page.getByRole('searchbox', { name: 'Buscar productos' }).fill(sold);
    await page.getByText('No se encontraron productos').or(count).first().waitFor();
    await page.waitForTimeout(600);
    assert.ok(!(await names(page)).includes(sold), `${sold} is hidden`);
    await page.getByRole('searchbox', { name: 'Buscar productos' }).fill('');

    // Category and brand.
    await page.getByLabel('Categoría').selectOption('celulares');
    await page.getByLabel('Marca').selectOption({ label: 'Samsung' });
    const samsungPhones = await listable(`p.category = 'celulares' and b.name = 'Samsung'`);
    await count.filter({ hasText: new RegExp(`^${samsungPhones.length} productos?$`) }).waitFor();
    assert.deepEqual(await names(page), samsungPhones.map((r) => r.name));
    const brandOptions = await page.getByLabel('Marca').locator('option').allTextContents();
    assert.ok(!brandOptions.includes('Huawei'), 'an inactive brand is not offered');
    await page.getByRole('button', { name: 'Limpiar filtros' }).click();
    await count.filter({ hasText: `${all.length} productos` }).waitFor();

    // Page 2 appends; 'Cargando...' while it loads (the answer is held back a little).
    await page.route('**/rest/v1/products?*', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 400));
      await route.continue();
    });
    await page.getByRole('button', { name: 'Mostrar más productos' }).click();
    await page.getByRole('button', { name: 'Cargando...' }).waitFor();
    await page.getByRole('button', { name: 'Mostrar más productos' }).waitFor();
    assert.deepEqual(await names(page), all.slice(0, 2 * PAGE_SIZE).map((r) => r.name));
    while (await page.getByRole('button', { name: 'Mostrar más productos' }).count()) {
      await page.getByRole('button', { name: 'Mostrar más productos' }).click();
      await page.waitForTimeout(900);
    }
    await page.unroute('**/rest/v1/products?*');
    const shown = await names(page);
    assert.deepEqual(shown, all.map((r) => r.name));
    for (const { name } of hidden) assert.ok(!shown.includes(name), `${name} is hidden`);

    // The drawer of the first product.
    const first = all[0];
    await page.getByRole('button', { name: `ver más sobre ${first.name}` }).click();
    const drawer = page.getByRole('dialog', { name: 'Detalles del producto' });
    await drawer.waitFor();
    const price = cop.format(first.price);
    await drawer.getByRole('heading', { name: first.name }).waitFor();
    await drawer.getByText(price, { exact: true }).waitFor();
    await drawer.getByText(first.brand ?? 'Sin marca', { exact: true }).waitFor();
    const units = first.quantity === 1 ? '1 unidad disponible' : `${first.quantity} unidades disponibles`;
    await drawer.getByText(units, { exact: true }).waitFor();
    const ask = drawer.getByRole('link', { name: 'Consultar disponibilidad por WhatsApp' });
    assert.equal(chatText(await hrefOf(ask)), say.productInfo(first.name, price));
    await page.waitForTimeout(400);
    await screenShot(page, 'drawer', 'desktop');
    // Keyboard: focus stays inside the open drawer, and Escape hands it back to 'ver más'.
    for (let i = 0; i < 6; i++) await page.keyboard.press('Tab');
    assert.ok(await drawer.evaluate((node) => node.contains(document.activeElement)), 'focus is trapped in the drawer');
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'detached' });
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), `ver más sobre ${first.name}`);
    assertNoProblems(page);
    await page.context().close();
  });

  test('store and drawer on a phone', async () => {
    const page = await newPage(browser, mobile);
    await page.goto(`${shop.url}/store`);
    await page.locator('main article').first().waitFor();
    await loadLazyImages(page);
    await screenshot(page, 'store');
    await assertAccessible(page);
    await page.getByRole('button', { name: /^ver más sobre / }).first().click();
    await page.getByRole('dialog', { name: 'Detalles del producto' }).waitFor();
    await page.waitForTimeout(400);
    await screenShot(page, 'drawer', 'mobile');
    assertNoProblems(page);
    await page.context().close();
  });

  test('a signed-out visit to /admin/products signs in and comes back', async () => {
    const page = await newPage(browser, desktop);
    await page.goto(`${shop.url}/admin/products`);
    await page.waitForURL(`${shop.url}/auth`);
    await page.getByRole('heading', { name: 'Iniciar sesión' }).waitFor();
    await screenshot(page, 'auth');
    await assertAccessible(page);

    await page.getByLabel('Correo electrónico').fill(shop.staff.email);
    await page.getByLabel('Contraseña', { exact: true }).fill(shop.staff.password);
    await page.getByRole('button', { name: 'Mostrar contraseña' }).click();
    assert.equal(await page.getByLabel('Contraseña', { exact: true }).getAttribute('type'), 'text');
    await page.getByRole('button', { name: 'Iniciar sesión' }).click();
    await page.waitForURL(`${shop.url}/admin/products`);
    await page.getByText('Bienvenido', { exact: true }).waitFor();

    // Signed in, /auth sends the visitor on to the admin area.
    await page.goto(`${shop.url}/auth`);
    await page.waitForURL(`${shop.url}/admin`);
    assertNoProblems(page);
    await page.context().close();
  });

  test('wrong credentials keep the visitor on /auth with an error toast', async () => {
    const page = await newPage(browser, mobile);
    await page.goto(`${shop.url}/auth`);
    await page.getByRole('heading', { name: 'Iniciar sesión' }).waitFor();
    await screenshot(page, 'auth');
    await assertAccessible(page);
    await page.getByLabel('Correo electrónico').fill(shop.staff.email);
    await page.getByLabel('Contraseña', { exact: true }).fill('no-es-la-clave');
    await page.getByRole('button', { name: 'Iniciar sesión' }).click();
    await page.getByText('Error al iniciar sesión', { exact: true }).waitFor();
    // GoTrue's 'Invalid login credentials', in Spanish.
    await page.getByText('Correo o contraseña incorrectos.', { exact: true }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/auth');
    // The refused password is the one expected failure (and Chromium's log of it).
    assertNoProblems(page, { ignore: [/\/auth\/v1\/token\b.*400/, /status of 400/] });
    await page.context().close();
  });

  test('register and the photo-booth page', async () => {
    for (const viewport of [desktop, mobile, narrow]) {
      const page = await newPage(browser, viewport);
      await page.goto(`${shop.url}/register`);
      await page.getByLabel('Usuario').waitFor();
      await page.getByLabel('Contraseña').waitFor();
      await screenshot(page, 'register');
      await assertAccessible(page);

      await page.goto(`${shop.url}/other`);
      for (const pack of ['Esencial', 'Clásico', 'Premium']) {
        await page.getByRole('heading', { name: pack, exact: true }).waitFor();
        const link = page.getByRole('link', { name: `Cotizar ${pack} por WhatsApp` });
        assert.equal(chatText(await hrefOf(link)), say.photoBoothPackage(pack));
      }
      const photos = page.locator('section[aria-labelledby="gallery-title"] img');
      assert.equal(await photos.count(), 8);
      for (const alt of await photos.evaluateAll((imgs) => imgs.map((img) => img.alt))) assert.ok(alt.length > 10);
      assert.equal(chatText(await hrefOf(page.getByRole('link', { name: 'Escríbenos por WhatsApp' }).first())), say.photoBooth);
      await loadLazyImages(page);
      await screenshot(page, 'other');
      await assertAccessible(page);
      assertNoProblems(page);
    await page.context().close();
    }
  });
});
