// The JavaScript budget of the public routes (at most 112 KB gzip, admin code
// and supabase-js split away: a public page's first screen runs without them,
// src/lib/supabase.ts). Reads Vite's manifest, follows each public page's chunk
// graph from the entry, prints the sizes and fails the build over budget.
//
// The sizes are what the gateway transfers (the budget used to be computed
// while the files went over the wire uncompressed): the `.gz` and
// `.br` files scripts/compress.mjs wrote, which the gateway sends as they are.
// The budget holds for gzip, which every browser accepts (Chromium offers
// brotli only over HTTPS and to localhost).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const BUDGET_KB = 112;
const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const manifest = JSON.parse(readFileSync(`${dist}.vite/manifest.json`, 'utf8'));

const publicPages = [
  'src/features/landing/LandingPage.tsx',
  'src/features/store/StorePage.tsx',
  'src/features/auth/LoginPage.tsx',
  'src/features/register/RegisterPage.tsx',
  'src/features/other/OtherPage.tsx',
];

/** Bytes sent for `file` in `encoding` (`.gz`, `.br`): the variant if the build wrote one, else the file. */
function sentKb(file, suffix) {
  const variant = dist + file + suffix;
  return statSync(existsSync(variant) ? variant : dist + file).size / 1024;
}
const gzipKb = (file) => sentKb(file, '.gz');
const brotliKb = (file) => sentKb(file, '.br');
// The shop's entry; the operator console (console.html) is an entry of its own
// that no public page loads.
const entry = 'index.html';
if (!manifest[entry]?.isEntry) throw new Error('the manifest has no index.html entry');
if (!existsSync(`${dist}${manifest[entry].file}.gz`)) {
  throw new Error('dist/ has no .gz files: run scripts/compress.mjs first (npm run build does)');
}

/** The JS files a chunk loads before it runs: itself and its static imports. */
function closure(key, seen = new Set()) {
  const chunk = manifest[key];
  if (!chunk || seen.has(key)) return seen;
  seen.add(key);
  for (const dep of chunk.imports ?? []) closure(dep, seen);
  return seen;
}

const base = closure(entry);
let worst = 0;
const rows = [];
for (const page of publicPages) {
  if (!manifest[page]) throw new Error(`${page} is not in the build`);
  const files = new Set([...base, ...closure(page)].map((key) => manifest[key].file));
  const kb = [...files].reduce((sum, file) => sum + gzipKb(file), 0);
  const br = [...files].reduce((sum, file) => sum + brotliKb(file), 0);
  worst = Math.max(worst, kb);
  rows.push([page.replace('src/features/', ''), kb, br]);
}
const allPublic = new Set(publicPages.flatMap((page) => [...closure(page)]).concat([...base]));
const everything = Object.values(manifest).filter((c) => c.file.endsWith('.js'));
const adminKb = everything
  .filter((c) => !allPublic.has(Object.keys(manifest).find((k) => manifest[k] === c)))
  .reduce((sum, c) => sum + gzipKb(c.file), 0);

console.log('\nJavaScript transferred per public route (entry + page chunks, as the gateway sends them):');
console.log(`  ${''.padEnd(28)} ${'gzip'.padStart(9)} ${'brotli'.padStart(9)}`);
for (const [page, kb, br] of rows) {
  console.log(`  ${page.padEnd(28)} ${kb.toFixed(1).padStart(6)} KB ${br.toFixed(1).padStart(6)} KB`);
}
console.log(`  ${'chunks loaded on demand'.padEnd(28)} ${adminKb.toFixed(1).padStart(6)} KB (supabase-js, admin area, drawer, menus, toasts, the console)`);
console.log(`  budget: ${BUDGET_KB} KB; heaviest public route ${worst.toFixed(1)} KB`);
if (worst > BUDGET_KB) {
  console.error(`over budget by ${(worst - BUDGET_KB).toFixed(1)} KB`);
  process.exit(1);
}
