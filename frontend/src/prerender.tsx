// The build-time renderer of the pages whose first screen is HTML (the landing
// and the store: src/lib/prerender.tsx). scripts/prerender.mjs builds this
// file for Node with Vite and writes each page into dist/prerendered/; the
// gateway serves them with their slots filled (gateway/src/first_screen/).
import { renderToString } from 'react-dom/server';
import { prerender } from 'react-dom/static';
import { StaticRouter } from 'react-router';
import { AppRoutes, AppShell, createQueryClient } from './App';
import { shopCompanyQuery } from './lib/company';
import { setConfig, type AppConfig } from './lib/config';
import { PRERENDER_PLACEHOLDERS, PrerenderContext } from './lib/prerender';
import type { ShopCompany } from './lib/api/fetchShopCompany';
import type { Product } from './lib/types';
import { FeaturedModels } from './features/landing/components/FeaturedModels';
import { ProductCard } from './features/store/components/ProductCard';
import { featuredQuery } from './features/landing/queries';
import { FIRST_SCREEN_CARDS, storeProductsQuery } from './features/store/queries';
import { filtersFromSearch } from './features/store/storeUrl';
import { paths } from './paths';

/** The pages pre-rendered, by the file the gateway reads them from. */
export const prerenderedPages = { landing: paths.home, store: paths.store } as const;

/** What the app's own markup needs of the deployment while rendering here. */
function configure(overrides: Partial<AppConfig> = {}) {
  setConfig({
    supabaseUrl: 'http://prerender.invalid',
    supabaseKey: '',
    whatsappNumber: PRERENDER_PLACEHOLDERS.whatsappNumber,
    contactEmail: '',
    contactPhone: '',
    socialLinks: {},
    ...overrides,
  });
}

/**
 * The markup of `path` inside `#root`, with its first-screen slots empty; or,
 * given `products`, with its slots drawn from them as the app draws the page
 * (scripts/prerender.mjs reads which classes the filled slots use).
 */
export async function renderPage(path: string, products?: Product[]): Promise<string> {
  configure();
  const client = createQueryClient();
  const company: Partial<ShopCompany> = { name: PRERENDER_PLACEHOLDERS.shopName };
  client.setQueryData(shopCompanyQuery.queryKey, company as ShopCompany);
  if (products) {
    client.setQueryData(featuredQuery.queryKey, products);
    // More than one page of them: the store shows its "more" button.
    client.setQueryData(storeProductsQuery(filtersFromSearch(new URLSearchParams()), 1).queryKey, {
      products,
      total: products.length + 1,
    });
  }
  const { prelude } = await prerender(
    <PrerenderContext.Provider value={!products}>
      <AppShell client={client}>
        <StaticRouter location={path}>
          <AppRoutes />
        </StaticRouter>
      </AppShell>
    </PrerenderContext.Provider>,
    // Every boundary inline, whatever its size: React outlines a large one
    // behind its fallback and reveals it from a script after a frame
    // (https://react.dev/reference/react-dom/static/prerender#parameters),
    // so the served page would change after it loaded.
    { progressiveChunkSize: Number.POSITIVE_INFINITY },
  );
  return new Response(prelude).text();
}

/**
 * React's markup of the first cards for `products`, as the app renders them
 * (tests compare the gateway's own with it: frontend/e2e/first-screen-html.test.mjs).
 */
export function renderCards(
  kind: 'featured' | 'store',
  products: Product[],
  options: { supabaseUrl: string; whatsappNumber: string; showStock: boolean },
): string {
  configure({ supabaseUrl: options.supabaseUrl, whatsappNumber: options.whatsappNumber });
  const noop = () => {};
  return renderToString(
    kind === 'featured' ? (
      <FeaturedModels products={products} />
    ) : (
      <>
        {products.map((product, index) => (
          <ProductCard
            key={product.id}
            product={product}
            onOpen={noop}
            priority={index < FIRST_SCREEN_CARDS}
            showStock={options.showStock}
          />
        ))}
      </>
    ),
  );
}
