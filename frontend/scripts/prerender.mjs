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

const { prerenderedPages, renderPage } = await import(pathToFileURL(`${ssrDir}/prerender.js`).href);
const index = readFileSync(`${root}dist/index.html`, 'utf8');
// The header that stands in for the app in index.html is what gets replaced.
const placeholder = /<div id="root">[\s\S]*?<\/header><\/div>/;
if (!placeholder.test(index)) throw new Error('dist/index.html has no <div id="root"> with its header to replace');
// The stylesheet goes into these pages, so that their first paint waits for
// no request but the page itself (on slow mobile data the stylesheet's own
// round trip, competing with the scripts, was most of the first paint).
const stylesheet = /<link rel="stylesheet" crossorigin href="\/(static\/[^"]+\.css)">/;
const css = index.match(stylesheet)?.[1];
if (!css) throw new Error('dist/index.html links no stylesheet');
// The link stays, disabled (never fetched): the app's chunk loader adds a
// page's stylesheet unless a link to it is in the document.
const inlineCss =
  `<style>${readFileSync(`${root}dist/${css}`, 'utf8').replace(/<\/style/gi, '<\\/style')}</style>` +
  `<link rel="stylesheet" crossorigin href="/${css}" disabled>`;
mkdirSync(`${root}dist/prerendered`, { recursive: true });
for (const [name, path] of Object.entries(prerenderedPages)) {
  const markup = await renderPage(path);
  for (const slot of name === 'landing' ? ['featured-title', 'featured-products'] : ['store-results']) {
    if (!markup.includes(`<template data-first-screen-slot="${slot}"></template>`)) {
      throw new Error(`the pre-rendered ${name} page has no ${slot} slot`);
    }
  }
  // React puts the preloads of the pictures it rendered first; they belong in the head.
  const preloads = markup.match(/^(<link [^>]*\/>)*/)[0];
  const page = index
    .replace(placeholder, () => `<div id="root" data-prerendered="${name}">${markup.slice(preloads.length)}</div>`)
    .replace(stylesheet, () => inlineCss)
    .replace('</head>', () => `${preloads}</head>`);
  writeFileSync(`${root}dist/prerendered/${name}.html`, page);
  console.log(`prerendered ${path} -> dist/prerendered/${name}.html (${(page.length / 1024).toFixed(1)} KB)`);
}
