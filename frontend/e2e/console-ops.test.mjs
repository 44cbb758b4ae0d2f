// The operator console's keys, observe and storage pages end to end, in
// Debian's Chromium against the real gateway: an operator makes a secret key
// that is shown once and works, rotates the JWT signing keys, finds a request
// by its id among the recent requests, and uploads and previews an image.
// The screenshots go to docs/public/.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { deflateSync } from 'node:zlib';
import { assertAccessible, launch, newPage } from './support/browser.mjs';
import { addOperator, bookScreenshot } from './support/console.mjs';
import { startShop } from './support/shop.mjs';

const EMAIL = 'ops@example.com';
const PASSWORD = 'console-ops-e2e-password';

let shop;
let browser;
let page;

/** `GET /rest/v1/products` with `key` as the API key and `requestId` as `x-request-id`. */
const products = (key, requestId) =>
  fetch(`${shop.url}/rest/v1/products?select=id&limit=1`, {
    headers: { apikey: key, ...(requestId ? { 'x-request-id': requestId } : {}) },
  });

async function eventually(check, within = 5000) {
  const deadline = Date.now() + within;
  while (!(await check())) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return true;
}

function crc32(bytes) {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let i = 0; i < 8; i++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** A `width` x `height` PNG of one colour, made here (PNG spec: IHDR, IDAT, IEND). */
function png(width, height, [r, g, b]) {
  const chunk = (type, data) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), body.length + 4);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: width }, () => [r, g, b]).flat())]);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('the operator console: keys, observe and storage', () => {
  before(async () => {
    shop = await startShop();
    await addOperator(shop, EMAIL, PASSWORD);
    browser = await launch();
    page = await newPage(browser, { width: 1280, height: 800 }, { baseURL: shop.url });
    page.on('dialog', (dialog) => dialog.accept());
    await page.goto('/_/');
    await page.getByLabel('Idioma').selectOption('en');
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  });

  after(async () => {
    await browser?.close();
    await shop?.stop();
  });

  test('a new secret key is shown once, works, and stops working when revoked', async () => {
    await page.getByRole('button', { name: 'Keys', exact: true }).click();
    await page.getByLabel('Key name').fill('backend');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-key').textContent()).trim();
    assert.match(key, /^sb_secret_/);
    assert.ok(await eventually(async () => (await products(key)).status === 200), 'the new key works');
    await page.getByRole('button', { name: 'I saved it' }).click();
    assert.equal(await page.getByText(key).count(), 0, 'the key is not shown again');
    await page.getByRole('button', { name: 'Revoke backend (secret)' }).click();
    await page.getByRole('status').filter({ hasText: 'Key revoked' }).waitFor();
    assert.ok(await eventually(async () => (await products(key)).status === 401), 'the revoked key is refused');
  });

  test('an operator rotates the signing keys', async () => {
    const before = await shop.sql("select id from auth.gateway_signing_keys where status = 'current'");
    await page.getByRole('button', { name: 'Create standby key' }).click();
    await page.getByRole('status').filter({ hasText: 'Standby key created' }).waitFor();
    await page.getByRole('button', { name: 'Rotate', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Keys rotated' }).waitFor();
    const rows = await shop.sql('select id, status from auth.gateway_signing_keys');
    const status = Object.fromEntries(rows.map((row) => [row.id, row.status]));
    assert.equal(status[before[0].id], 'previous');
    const current = rows.find((row) => row.status === 'current');
    assert.notEqual(current.id, before[0].id);
    await page.locator(`tr[data-status="current"]`).getByText(current.id).waitFor();
    await bookScreenshot(page, 'console-keys', { fullPage: true });
    await assertAccessible(page);
  });

  test('an operator finds a request by its id', async () => {
    const id = `console-e2e-${Date.now()}`;
    assert.equal((await products(shop.anonKey, id)).status, 200);
    assert.equal((await products('not-a-key', `${id}-refused`)).status, 401);
    await page.getByRole('button', { name: 'Observe', exact: true }).click();
    await page.getByRole('heading', { name: 'Recent requests' }).waitFor();
    await page.getByLabel('Request id').fill(id);
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    const rows = page.getByRole('table', { name: 'Recent requests' }).locator('tbody tr');
    // The unfiltered list may already hold both rows: wait for the filtered one.
    await rows.filter({ hasText: `${id}-refused` }).waitFor();
    await eventually(async () => (await rows.count()) === 2);
    assert.equal(await rows.count(), 2);
    await page.getByLabel('Status').fill('4xx');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await eventually(async () => (await rows.count()) === 1);
    assert.equal(await rows.count(), 1);
    assert.match(await rows.first().textContent(), /401/);
    await page.getByLabel('Status').fill('');
    await page.getByLabel('Request id').fill('');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.getByRole('img', { name: /^Requests: / }).waitFor();
    await bookScreenshot(page, 'console-observe', { fullPage: true });
    await assertAccessible(page);
  });

  test('an operator makes a bucket, uploads an image and previews it', async () => {
    await page.getByRole('button', { name: 'Storage', exact: true }).click();
    await page.getByLabel('Bucket name').fill('photos');
    await page.getByRole('button', { name: 'Create bucket' }).click();
    await page.getByText('Settings of photos').waitFor();
    await page.getByLabel('File', { exact: true }).setInputFiles({ name: 'sunset.png', mimeType: 'image/png', buffer: png(320, 200, [230, 110, 40]) });
    // Uploads are resumable (TUS): made, then sent in chunks.
    const tus = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.includes('/api/storage/upload/resumable')) tus.push(request.method());
    });
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'sunset.png uploaded' }).waitFor();
    assert.deepEqual(tus, ['POST', 'PATCH'], 'the upload went through the resumable endpoint');
    const stored = await shop.sql("select name from storage.objects where bucket_id = 'photos'");
    assert.deepEqual(stored, [{ name: 'sunset.png' }]);
    await page.getByRole('button', { name: 'Preview sunset.png' }).click();
    const preview = page.getByRole('img', { name: 'Preview of sunset.png' });
    await preview.waitFor();
    assert.ok(
      await eventually(() => preview.evaluate((img) => img.complete && img.naturalWidth > 0)),
      'the transform endpoint drew the preview',
    );
    await page.getByRole('button', { name: 'Signed URL sunset.png' }).click();
    const signed = await page.getByTestId('signed-url').getAttribute('href');
    assert.equal((await fetch(signed)).status, 200, 'the signed URL works without credentials');
    await bookScreenshot(page, 'console-storage', { fullPage: true });
    await assertAccessible(page);
  });

  test('each page fits a 768 px wide window', async () => {
    await page.setViewportSize({ width: 768, height: 900 });
    for (const name of ['Storage', 'Keys', 'Observe']) {
      await page.getByRole('button', { name, exact: true }).click();
      await page.getByRole('heading').first().waitFor();
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 768, `${name} is ${width} px wide`);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});
