/// <reference types="vitest/config" />
import { fileURLToPath } from 'node:url';
import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// `npm run dev` proxies the three APIs and the runtime config to a gateway
// (`make run` listens on 127.0.0.1:54321 by default; GATEWAY_URL overrides).
const gateway = process.env.GATEWAY_URL ?? 'http://127.0.0.1:54321';

export default defineConfig({
  plugins: [react(), tailwindcss()],
  resolve: {
    alias: [
      { find: '@', replacement: fileURLToPath(new URL('./src', import.meta.url)) },
      // No realtime: see src/lib/realtime-stub.ts.
      { find: /^@supabase\/realtime-js$/, replacement: fileURLToPath(new URL('./src/lib/realtime-stub.ts', import.meta.url)) },
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
  },
  server: {
    proxy: Object.fromEntries(
      ['/rest/v1', '/auth/v1', '/storage/v1', '/config.json'].map((path) => [path, gateway]),
    ),
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
