// Pre-renders the pages whose first screen is HTML (src/lib/prerender.tsx):
// builds src/prerender.tsx for Node with the app's own Vite configuration
// (into dist-ssr/, which the tests use too), renders the landing and the store
// with React's server renderer and writes each into a copy of the built
// index.html: dist/prerendered/<page>.html. The gateway serves those, with
// their first-screen slots filled, for `/` and `/store`
// (gateway/src/first_screen/); every other address keeps dist/index.html.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'vite';
import { classesOf, criticalCss } from './critical-css.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const ssrDir = `${root}dist-ssr`;

await build({
  root,
  logLevel: 'warn',
  build: {
    ssr: 'src/prerender.tsx',
    outDir: ssrDir,
    emptyOutDir: true,
    manifest: false,
    rollupOptions: { input: 'src/prerender.tsx', output: { entryFileNames: 'prerender.js' } },
  },
});

const { prerenderedPages, renderCards, renderPage } = await import(pathToFileURL(`${ssrDir}/prerender.js`).href);
const index = readFileSync(`${root}dist/index.html`, 'utf8');
// The header that stands in for the app in index.html is what gets replaced.
const placeholder = /<div id="root">[\s\S]*?<\/header><\/div>/;
if (!placeholder.test(index)) throw new Error('dist/index.html has no <div id="root"> with its header to replace');
// The part of the stylesheet a page's HTML uses goes into the page, so that its
// first paint waits for no request but the page itself (on slow mobile data
// the stylesheet's own round trip, competing with the scripts, was most of the
// first paint), and only that part: the phone styles the first screen with a
// half to three fifths of the stylesheet. The whole stylesheet follows it, for a medium
// no screen is, which holds neither the paint nor the parser back, and is
// switched on when it has loaded (https://web.dev/articles/defer-non-critical-css);
// it arrives long before the scripts that draw anything else, and the app's
// chunk loader finds the link and adds no other. (At the end of the body the
// same link held the store's first paint back in the comparison:
// docs/benchmarks.md.)
const stylesheet = /<link rel="stylesheet" crossorigin href="\/(static\/[^"]+\.css)">/;
const css = index.match(stylesheet)?.[1];
if (!css) throw new Error('dist/index.html links no stylesheet');
const fullCss = readFileSync(`${root}dist/${css}`, 'utf8');
// What the gateway fills in: each kind of card alone, and (below) the page
// drawn from rows of every kind a card shows differently.
const cardClasses = new Set();
for (const kind of ['featured', 'store']) {
  for (const showStock of [true, false]) {
    const markup = renderCards(kind, sampleProducts(), { supabaseUrl: 'http://prerender.invalid', whatsappNumber: '1', showStock });
    for (const name of classesOf(markup)) cardClasses.add(name);
  }
}
mkdirSync(`${root}dist/prerendered`, { recursive: true });
for (const [name, path] of Object.entries(prerenderedPages)) {
  const markup = await renderPage(path);
  for (const slot of name === 'landing' ? ['featured-title', 'featured-products'] : ['store-results']) {
    if (!markup.includes(`<template data-first-screen-slot="${slot}"></template>`)) {
      throw new Error(`the pre-rendered ${name} page has no ${slot} slot`);
    }
  }
  // A boundary left pending (`<!--$?-->`) would be revealed by a script a
  // frame after the page loaded: the HTML must be the page as it stays.
  if (markup.includes('<!--$?-->')) {
    throw new Error(`the pre-rendered ${name} page leaves a Suspense boundary to be revealed later`);
  }
  // React puts the preloads of the pictures it rendered first; they belong in the head.
  const preloads = markup.match(/^(<link [^>]*\/>)*/)[0];
  const body = markup.slice(preloads.length);
  const critical = criticalCss(fullCss, new Set([...classesOf(body), ...classesOf(await renderPage(path, sampleProducts())), ...cardClasses]));
  const page = index
    .replace(placeholder, () => `<div id="root" data-prerendered="${name}">${body}</div>`)
    .replace(
      stylesheet,
      () =>
        `<style>${critical.replace(/<\/style/gi, '<\\/style')}</style>` +
        `<link rel="stylesheet" crossorigin href="/${css}" media="print" onload="this.media='all'">`,
    )
    .replace('</head>', () => `${preloads}</head>`);
  writeFileSync(`${root}dist/prerendered/${name}.html`, page);
  console.log(
    `prerendered ${path} -> dist/prerendered/${name}.html (${(page.length / 1024).toFixed(1)} KB, ` +
      `${(critical.length / 1024).toFixed(1)} of the stylesheet's ${(fullCss.length / 1024).toFixed(1)} KB inline)`,
  );
}

/** Rows of every kind a card shows differently (condition, stock, picture, brand, description). */
function sampleProducts() {
  const row = (id, fields) => ({
    id,
    name: `Modelo ${id}`,
    description: 'Descripción',
    price: 1000000,
    quantity: 12,
    condition: 'nuevo',
    featured: false,
    category: 'celulares',
    color: null,
    link_image: null,
    link_image_s3: null,
    brand_id: 1,
    brands: { id: 1, name: 'Marca', description: null },
    status: true,
    upload_file: false,
    created_at: '2026-01-01T00:00:00Z',
    created_by: null,
    updated: null,
    updated_by: null,
    ...fields,
  });
  return [
    row(1, { featured: true, link_image_s3: 'http://prerender.invalid/storage/v1/object/public/store-products/a.png' }),
    row(2, { condition: 'usado', quantity: 3, description: null, brands: null, brand_id: null, link_image: '/assets/a.svg' }),
    row(3, { condition: 'reacondicionado', quantity: 1 }),
    row(4, { quantity: 0 }),
    row(5, {}),
  ];
}
