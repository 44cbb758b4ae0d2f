// The operator console at /_/ end to end, against the real gateway: an
// operator made with `gateway operators add` signs in, reads the tables and
// their policies, runs SQL, downloads the result as CSV and saves it as a
// snippet, shows a plan tree, makes a table with RLS and a policy whose rows
// anon then reads through supabase-js, and bans a user whose refresh then
// fails, in Debian's
// Chromium. The screenshots go to docs/public/ for the README and the book.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { createClient } from '@supabase/supabase-js';
import ws from 'ws';
import { assertAccessible, assertNoProblems, launch, newPage } from './support/browser.mjs';
import { addOperator, bookScreenshot } from './support/console.mjs';
import { startShop } from './support/shop.mjs';

const EMAIL = 'ops@example.com';
const PASSWORD = 'console-e2e-password';

let shop;
let browser;
let page;

describe('the operator console', () => {
  before(async () => {
    shop = await startShop();
    await addOperator(shop, EMAIL, PASSWORD);
    browser = await launch();
    page = await newPage(browser, { width: 1280, height: 800 }, { baseURL: shop.url, acceptDownloads: true });
  });

  after(async () => {
    await browser?.close();
    await shop?.stop();
  });

  test('an operator signs in, in Spanish by default', async () => {
    await page.goto('/_/');
    await page.getByLabel('Correo').fill(EMAIL);
    await page.getByLabel('Contraseña').fill('not-the-password');
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByRole('alert').filter({ hasText: 'Correo o contraseña incorrectos' }).waitFor();
    await page.getByLabel('Contraseña').fill(PASSWORD);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByRole('button', { name: 'Salir' }).waitFor();
    assert.equal(await page.getByText(EMAIL).count(), 1);
    const cookie = (await page.context().cookies()).find((c) => c.name === 'gateway_console');
    assert.equal(cookie?.httpOnly, true);
    assert.equal(cookie?.sameSite, 'Strict');
  });

  test('the tables show their columns and policies, in English when chosen', async () => {
    await page.getByLabel('Idioma').selectOption('en');
    await page.getByRole('button', { name: 'Tables' }).click();
    await page.getByRole('button', { name: 'public.products' }).click();
    await page.getByRole('heading', { name: 'public.products' }).waitFor();
    await page.getByRole('heading', { name: 'Policies' }).waitFor();
    const policies = await page
      .getByRole('article')
      .locator('li p.font-semibold')
      .allTextContents();
    const expected = await shop.sql(
      "select policyname from pg_policies where schemaname = 'public' and tablename = 'products' order by policyname",
    );
    assert.deepEqual(policies, expected.map((row) => row.policyname));
    assert.equal(await page.getByText('RLS enabled').count(), 1);
    await assertAccessible(page);
  });

  test('SQL runs, shows a grid and downloads as CSV', async () => {
    await page.getByRole('button', { name: 'SQL' }).click();
    await page.getByLabel('Query', { exact: true }).fill('select id, name from products order by id limit 3');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByText('3 rows').waitFor();
    const expected = await shop.sql('select id, name from products order by id limit 3');
    const cells = await page.locator('tbody tr').first().locator('td').allTextContents();
    assert.deepEqual(cells, [String(expected[0].id), expected[0].name]);
    await bookScreenshot(page, 'console-sql');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    const csv = readFileSync(await download.path(), 'utf8');
    assert.equal(csv.split('\r\n')[0], 'id,name');
    assert.equal(csv.split('\r\n').length, 5, csv);

    await page.getByLabel('Query name').fill('First three');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('button', { name: 'Open First three' }).waitFor();
    assert.deepEqual(await shop.sql('select name, sql from _console.snippets'), [
      { name: 'First three', sql: 'select id, name from products order by id limit 3' },
    ]);

    await page.getByLabel('Query', { exact: true }).fill('selec 1');
    await page.getByLabel('Query', { exact: true }).press('Control+Enter');
    await page.getByRole('alert').filter({ hasText: '42601' }).waitFor();
    await page.getByRole('button', { name: 'Open First three' }).click();
    assert.equal(await page.getByLabel('Query', { exact: true }).inputValue(), 'select id, name from products order by id limit 3');
    await assertAccessible(page);
    // The page's own session check before signing in, the wrong password,
    // and the SQL error were expected.
    assertNoProblems(page, { ignore: [/\/_\/api\/session: 401/, /\/_\/api\/sign-in: 401/, /\/_\/api\/sql: 400/, /status of 40[01]/] });
  });

  test('an operator makes a user, finds them, bans them, and their refresh fails', async () => {
    const auth = (path, body) =>
      fetch(`${shop.url}/auth/v1${path}`, {
        method: 'POST',
        headers: { apikey: shop.anonKey, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    await page.getByRole('button', { name: 'Users' }).click();
    await page.getByText('New user').click();
    await page.getByRole('textbox', { name: 'E-mail' }).fill('lucia@example.com');
    await page.getByLabel('Password', { exact: true }).fill('lucia-password-1');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'User created' }).waitFor();

    const signedIn = await auth('/token?grant_type=password', { email: 'lucia@example.com', password: 'lucia-password-1' });
    assert.equal(signedIn.status, 200);
    const session = await signedIn.json();

    await page.getByRole('searchbox').fill('lucia');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('button', { name: 'lucia@example.com' }).click();
    await page.getByRole('heading', { name: 'lucia@example.com' }).waitFor();
    await page.getByRole('button', { name: /^Revoke / }).waitFor();
    await page.getByRole('button', { name: 'Ban for 24 h' }).click();
    await page.getByRole('button', { name: 'Lift ban' }).waitFor();
    await bookScreenshot(page, 'console-users');
    await assertAccessible(page);

    const refreshed = await auth('/token?grant_type=refresh_token', { refresh_token: session.refresh_token });
    assert.equal(refreshed.status, 400);
    assert.equal((await refreshed.json()).error_code, 'user_banned');
  });

  // API docs, live settings, language and 768 px (ApiDocs.tsx, Settings.tsx).
  test("a table's API docs show its columns and supabase-js calls with the URL and publishable key", async () => {
    await page.getByRole('button', { name: 'API', exact: true }).click();
    await page.getByRole('heading', { name: 'Connect' }).waitFor();
    const setup = await page.getByRole('region', { name: 'Create the client' }).locator('pre').textContent();
    assert.ok(setup.includes(shop.publishableKey), setup);
    assert.ok(setup.includes(shop.url), setup);
    await page.getByRole('button', { name: 'public.products', exact: true }).click();
    await page.getByRole('heading', { name: 'public.products' }).waitFor();
    const columns = await page.getByRole('article').locator('tbody tr td:first-child').allTextContents();
    const expected = await shop.sql(
      "select column_name from information_schema.columns where table_schema = 'public' and table_name = 'products' order by ordinal_position",
    );
    assert.deepEqual(
      columns.map((text) => text.replace(/ ?\(primary key\)$/i, '')),
      expected.map((row) => row.column_name),
    );
    const read = await page.getByRole('region', { name: 'Read all rows' }).locator('pre').textContent();
    assert.match(read, /\.from\('products'\)\s+\.select\('\*'\)/);
    await page.getByRole('region', { name: 'Subscribe to changes' }).waitFor();
    await page.getByRole('button', { name: 'public.brands', exact: true }).click();
    await page.getByRole('heading', { name: 'public.brands' }).waitFor();
    await bookScreenshot(page, 'console-api-docs');
    await assertAccessible(page);
  });

  test('the live settings say where each came from and show no secret', async () => {
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    await page.getByRole('heading', { name: 'Settings', exact: true }).waitFor();
    const row = (flag) => page.locator('tr', { has: page.getByText(flag, { exact: true }) });
    assert.deepEqual(await row('--listen').locator('td').allTextContents(), ['--listenGATEWAY_LISTEN', '127.0.0.1:0', 'flag']);
    assert.equal(await row('--console-row-limit').locator('td').nth(2).textContent(), 'default');
    assert.match(await row('--auth-smtp-pass').locator('td').nth(1).textContent(), /^(set \(secret\)|not set)$/);
    await page.getByLabel('Filter by name or value').fill('smtp');
    assert.equal(await row('--listen').count(), 0);
    await row('--auth-smtp-host').waitFor();
    await page.getByLabel('Filter by name or value').fill('');
    await bookScreenshot(page, 'console-settings');
    await assertAccessible(page);
  });

  test('the language chosen is kept across a reload', async () => {
    await page.getByLabel('Language').selectOption('es');
    await page.getByRole('heading', { name: 'Ajustes', exact: true }).waitFor();
    await page.reload();
    await page.getByRole('button', { name: 'Salir' }).waitFor();
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'es');
    await page.getByLabel('Idioma').selectOption('en');
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  });

  test('every page is usable at 768 px, by keyboard, with a visible focus', async () => {
    await page.setViewportSize({ width: 768, height: 1024 });
    for (const name of ['Tables', 'SQL', 'Users', 'API', 'Settings']) {
      await page.getByRole('button', { name, exact: true }).click();
      await page.waitForLoadState('networkidle');
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `${name} is ${overflow} px wider than the window`);
      await assertAccessible(page);
    }
    // The tabs are reached with Tab and chosen with Enter, each with an outline.
    await page.getByRole('button', { name: 'Tables', exact: true }).focus();
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const element = document.activeElement;
      return { text: element.textContent, outline: getComputedStyle(element).outlineStyle };
    });
    assert.equal(focused.text, 'SQL');
    assert.notEqual(focused.outline, 'none');
    await page.keyboard.press('Enter');
    await page.getByLabel('Query', { exact: true }).waitFor();
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  // The table editor (TableEditor.tsx) and the plan tree (ExplainTree.tsx).
  test('explain analyze shows the plan as a tree', async () => {
    await page.getByRole('button', { name: 'SQL' }).click();
    await page.getByLabel('Query', { exact: true }).fill('select id, name from products order by name limit 5');
    await page.getByRole('button', { name: 'Explain analyze' }).click();
    const tree = page.getByRole('tree', { name: 'Query plan' });
    await tree.waitFor();
    assert.equal(await tree.locator('[data-plan-node]').first().textContent(), 'Limit');
    assert.ok((await tree.getByText('products').count()) >= 1, 'the scan names its relation');
    await bookScreenshot(page, 'console-explain');
    await assertAccessible(page);
  });

  test('an operator makes a table with RLS and a policy, inserts rows, and anon reads them with supabase-js', async () => {
    await page.getByRole('button', { name: 'Tables' }).click();
    await page.getByRole('button', { name: 'New table' }).click();
    const form = page.getByRole('region', { name: 'New table' });
    await form.getByLabel('Table name').fill('notes');
    await form.getByRole('button', { name: 'Add column' }).click();
    await form.getByLabel('Name', { exact: true }).nth(1).fill('body');
    await form.getByLabel('Nullable').nth(1).uncheck();
    await form.getByLabel('Policy name').fill('anyone reads notes');
    await form.getByLabel('Template').selectOption('publicRead');
    await form.getByRole('button', { name: 'Show the SQL' }).click();
    const sql = await page.getByTestId('change-sql').textContent();
    assert.match(sql, /^create table "public"\."notes" \(/);
    assert.match(sql, /alter table "public"\."notes" enable row level security;/);
    assert.match(sql, /create policy "anyone reads notes" on "public"\."notes" for select to anon, authenticated using \(true\);/);
    await page.getByRole('button', { name: 'Apply', exact: true }).click();

    await page.getByRole('button', { name: 'public.notes' }).click();
    await page.getByRole('heading', { name: 'public.notes' }).waitFor();
    for (const [id, body] of [['1', 'first note'], ['2', 'second note']]) {
      await page.getByRole('button', { name: 'Insert row' }).click();
      const row = page.getByRole('form', { name: 'Insert row' });
      await row.getByLabel(/^id/).fill(id);
      await row.getByLabel(/^body/).fill(body);
      await row.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByRole('cell', { name: body }).waitFor();
    }
    await page.getByLabel('Sort by').first().selectOption('body');
    await page.getByRole('cell', { name: 'first note' }).waitFor();
    await bookScreenshot(page, 'console-tables');
    await assertAccessible(page);
    await page.setViewportSize({ width: 768, height: 900 });
    await page.getByRole('button', { name: 'Insert row' }).scrollIntoViewIfNeeded();
    assert.ok(await page.getByRole('button', { name: 'Insert row' }).isVisible());
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 768, `no sideways scrolling at 768 px (${width})`);
    await page.setViewportSize({ width: 1280, height: 800 });

    assert.deepEqual(
      await shop.sql("select relrowsecurity from pg_class where oid = 'public.notes'::regclass"),
      [{ relrowsecurity: true }],
    );
    // Node 20 has no WebSocket of its own for supabase-js's realtime client.
    const anon = createClient(shop.url, shop.anonKey, { auth: { persistSession: false }, realtime: { transport: ws } });
    const { data, error } = await anon.from('notes').select('id, body').order('id');
    assert.equal(error, null);
    assert.deepEqual(data, [
      { id: 1, body: 'first note' },
      { id: 2, body: 'second note' },
    ]);
  });
});
