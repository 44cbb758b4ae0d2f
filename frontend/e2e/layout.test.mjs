// Nothing spills at 360 and 1280 px: on every screen of the shop,
// public and admin, with its drawer and dialogs open, no element reaches out
// of the viewport (no sideways scrolling) or out of its parent, and no text is
// cut off unless it is meant to end in an ellipsis. Screenshots of each screen
// go to e2e/artifacts/layout-*.png.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { launch, newPage, screenshot } from './support/browser.mjs';
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

/**
 * Runs in the page: every visible element that reaches out of the viewport or
 * out of its parent's box by more than a pixel, or whose text is cut without
 * an ellipsis. Skipped, each for its reason: screen-reader-only text (a 1 px
 * clipped box by design), what lies inside a scroll container (it scrolls),
 * positioned elements (badges and buttons placed over their parent on purpose,
 * and decorative shapes cut by a clipping ancestor: measured against the
 * viewport only, as much of them as shows), and SVG internals (icons draw past
 * their box by their own viewBox).
 */
function spills() {
  const width = document.documentElement.clientWidth;
  const found = [];
  const name = (el) => {
    const id = el.id ? `#${el.id}` : '';
    const cls = typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/).slice(0, 3).join('.')}` : '';
    const text = (el.textContent ?? '').trim().slice(0, 40);
    return `${el.tagName.toLowerCase()}${id}${cls} "${text}"`;
  };
  const hidden = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const style = getComputedStyle(e);
      if (style.display === 'none' || style.visibility === 'hidden' || style.opacity === '0') return true;
    }
    return false;
  };
  const srOnly = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const style = getComputedStyle(e);
      if (style.position === 'absolute' && (style.clip === 'rect(0px, 0px, 0px, 0px)' || style.clipPath === 'inset(50%)')) return true;
      if (e.getBoundingClientRect().width <= 1 && e.getBoundingClientRect().height <= 1 && style.overflow === 'hidden') return true;
    }
    return false;
  };
  const scrolls = (el) => {
    for (let e = el.parentElement; e && e !== document.body; e = e.parentElement) {
      const style = getComputedStyle(e);
      if (/(auto|scroll)/.test(style.overflowX) || /(auto|scroll)/.test(style.overflowY)) return true;
    }
    return false;
  };
  if (document.documentElement.scrollWidth > width + 1) {
    found.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} px wide in a ${width} px viewport`);
  }
  for (const el of document.body.querySelectorAll('*')) {
    if (el.closest('svg') && el.tagName.toLowerCase() !== 'svg') continue;
    if (['script', 'style', 'link', 'meta', 'br'].includes(el.tagName.toLowerCase())) continue;
    const box = el.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    if (hidden(el) || srOnly(el)) continue;
    const inScroller = scrolls(el);
    // What shows of the element: its box cut by the ancestors that clip.
    let left = box.left;
    let right = box.right;
    for (let e = el.parentElement; e && e !== document.documentElement; e = e.parentElement) {
      if (/(hidden|clip)/.test(getComputedStyle(e).overflowX)) {
        const clip = e.getBoundingClientRect();
        left = Math.max(left, clip.left);
        right = Math.min(right, clip.right);
      }
    }
    if (!inScroller && right > left && (right > width + 1 || left < -1)) {
      found.push(`${name(el)} leaves the viewport: ${Math.round(left)}..${Math.round(right)} of ${width}`);
      continue;
    }
    const style = getComputedStyle(el);
    const positioned = style.position === 'absolute' || style.position === 'fixed';
    const parent = el.parentElement;
    if (!inScroller && !positioned && parent && parent !== document.body) {
      const outer = parent.getBoundingClientRect();
      if (box.right > outer.right + 1 || box.left < outer.left - 1) {
        found.push(`${name(el)} leaves its parent ${name(parent)}: ${Math.round(box.left)}..${Math.round(box.right)} in ${Math.round(outer.left)}..${Math.round(outer.right)}`);
        continue;
      }
    }
    const ellipsis = style.textOverflow === 'ellipsis' || style.webkitLineClamp !== 'none';
    const clips = /(hidden|clip)/.test(style.overflowX);
    if (clips && !ellipsis && el.scrollWidth > el.clientWidth + 1 && el.children.length === 0 && (el.textContent ?? '').trim()) {
      found.push(`${name(el)} cuts its text: ${el.scrollWidth} px of text in ${el.clientWidth} px`);
    }
  }
  return found;
}

async function check(page, label) {
  await page.waitForLoadState('networkidle');
  await page.waitForTimeout(300);
  await screenshot(page, `layout-${label}`);
  const found = await page.evaluate(spills);
  assert.deepEqual(found, [], `${label} at ${page.viewportSize().width} px`);
}

async function signIn(page) {
  await page.goto('/auth');
  await page.locator('input[type="email"]').fill(shop.staff.email);
  await page.locator('input[type="password"]').fill(shop.staff.password);
  await page.getByRole('button', { name: 'Iniciar sesión' }).click();
  await page.waitForURL(/\/admin/);
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
}

for (const width of [360, 1280]) {
  const size = { width, height: width < 600 ? 780 : 900 };
  describe(`at ${width} px`, () => {
    test('no public screen spills out of the viewport or out of a box', async () => {
      const page = await newPage(browser, size, { baseURL: shop.url });
      for (const path of ['/', '/store', '/auth', '/register', '/other']) {
        await page.goto(path);
        await check(page, `${path.replace(/\//g, '') || 'home'}`);
      }
      await page.goto('/store');
      await page.locator('[data-product-card] button').first().click();
      await page.getByRole('dialog').waitFor();
      await check(page, 'store-drawer');
      await page.context().close();
    });

    test('no admin screen spills out of the viewport or out of a box', async () => {
      const page = await newPage(browser, size, { baseURL: shop.url });
      await signIn(page);
      await check(page, 'dashboard');
      for (const path of ['/admin/products', '/admin/brands', '/admin/settings']) {
        await page.goto(path);
        await check(page, path.replace(/^\/admin\//, 'admin-'));
      }
      await page.goto('/admin/products');
      await page.getByRole('button', { name: /^Ver Productos de / }).first().click();
      await page.getByRole('dialog').waitFor();
      await check(page, 'admin-category');
      await page.context().close();
    });
  });
}

test('the floating chat button never covers the hero: it shows once the hero is scrolled past', async () => {
  const page = await newPage(browser, { width: 360, height: 780 }, { baseURL: shop.url });
  await page.goto('/');
  await page.getByRole('heading', { level: 1 }).waitFor();
  const chat = page.getByRole('link', { name: 'Escríbenos por WhatsApp' });
  assert.equal(await chat.count(), 0, 'no floating button over the hero');
  await page.locator('#productos').scrollIntoViewIfNeeded();
  await chat.waitFor();
  await page.context().close();
});
