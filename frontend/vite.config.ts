/// <reference types="vitest/config" />
import { fileURLToPath } from 'node:url';
import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

// `npm run dev` proxies the four APIs and the runtime config to a gateway
// (`make run` listens on 127.0.0.1:54321 by default; GATEWAY_URL overrides).
const gateway = process.env.GATEWAY_URL ?? 'http://127.0.0.1:54321';

/** The public pages and the paths they answer (src/paths.ts, src/App.tsx). */
const routeChunks: Record<string, string> = {
  '/': 'src/features/landing/LandingPage.tsx',
  '/store': 'src/features/store/StorePage.tsx',
  '/auth': 'src/features/auth/LoginPage.tsx',
  '/register': 'src/features/register/RegisterPage.tsx',
  '/other': 'src/features/other/OtherPage.tsx',
};

/**
 * Each page is a lazy chunk, found by React only once the entry has run and
 * rendered: on mobile data it then waited for the entry, a round trip and its
 * own download, one after the other. This plugin writes into the
 * built `index.html` a small script that, for the path being opened, adds
 * `<link rel="modulepreload">` for that page's chunk and the chunks it
 * imports, so they download beside the entry
 * (https://developer.mozilla.org/en-US/docs/Web/HTML/Attributes/rel/modulepreload).
 */
function preloadRouteChunks(): Plugin {
  return {
    name: 'preload-route-chunks',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, context) {
        const bundle = context.bundle;
        // The shop's page only: the console (console.html) has no routes to preload.
        if (!bundle || context.path !== '/index.html') return html;
        const chunks = Object.values(bundle).flatMap((output) => (output.type === 'chunk' ? [output] : []));
        const byFile = new Map(chunks.map((chunk) => [chunk.fileName, chunk]));
        const root = fileURLToPath(new URL('./', import.meta.url));
        // The shop's entry (`main` in `build.rollupOptions.input`).
        const entry = chunks.find((chunk) => chunk.isEntry && chunk.name === 'main');
        if (!entry) throw new Error('the build has no `main` entry (index.html)');
        const closure = (fileName: string, seen = new Set<string>()): Set<string> => {
          if (seen.has(fileName)) return seen;
          seen.add(fileName);
          for (const imported of byFile.get(fileName)?.imports ?? []) closure(imported, seen);
          return seen;
        };
        const loaded = closure(entry.fileName);
        const preloads: Record<string, string[]> = {};
        for (const [path, source] of Object.entries(routeChunks)) {
          const page = chunks.find((chunk) => chunk.facadeModuleId === root + source);
          if (!page) throw new Error(`${source} is no chunk of the build`);
          preloads[path] = [...closure(page.fileName)].filter((file) => !loaded.has(file)).map((file) => `/${file}`);
        }
        const script =
          `(function(m){var f=m[location.pathname.replace(/(.)\\/$/,'$1')]||[];` +
          `for(var i=0;i<f.length;i++){var l=document.createElement('link');l.rel='modulepreload';l.crossOrigin='';l.href=f[i];document.head.appendChild(l)}})` +
          `(${JSON.stringify(preloads)})`;
        return [{ tag: 'script', children: script, injectTo: 'head' }];
      },
    },
  };
}

export default defineConfig({
  plugins: [react(), tailwindcss(), preloadRouteChunks()],
  resolve: {
    alias: [
      { find: '@', replacement: fileURLToPath(new URL('./src', import.meta.url)) },
      // Realtime's client loads on the first subscription: see src/lib/realtime-lazy.ts.
      { find: /^@supabase\/realtime-js$/, replacement: fileURLToPath(new URL('./src/lib/realtime-lazy.ts', import.meta.url)) },
    ],
  },
  build: {
    // `/assets/` holds the shop's predefined product images (spec section 3),
    // so the hashed bundles go to `/static/`, which the gateway caches forever.
    assetsDir: 'static',
    target: 'es2022',
    reportCompressedSize: true,
    // scripts/budget.mjs reads the chunk graph from it.
    manifest: true,
    rollupOptions: {
      // The operator console (src/console/, docs/console.md) is a page and a
      // bundle of its own, which the shop's pages never load.
      input: {
        main: fileURLToPath(new URL('./index.html', import.meta.url)),
        console: fileURLToPath(new URL('./console.html', import.meta.url)),
      },
    },
  },
  server: {
    proxy: {
      ...Object.fromEntries(['/rest/v1', '/auth/v1', '/storage/v1', '/config.json'].map((path) => [path, gateway])),
      '/realtime/v1': { target: gateway, ws: true },
    },
  },
  test: {
    environment: 'jsdom',
    globals: true,
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    css: false,
    // Rendering and user-event on a busy 2-core CI machine can take seconds;
    // vitest's default of 5 s failed a paging test there.
    testTimeout: 20_000,
  },
});
