import type { QueryClient } from '@tanstack/react-query';
import type { ShopCompany } from '@/lib/api/fetchShopCompany';
import { shopCompanyQuery } from '@/lib/company';
import { featuredQuery } from '@/features/landing/queries';
import { FIRST_SCREEN_CARDS, storeFirstScreenQueries, storeProductsQuery } from '@/features/store/queries';
import { filtersFromSearch } from '@/features/store/storeUrl';
import { productImageUrl } from '@/features/store/api/productImageUrl';
import { productImageSrc } from '@/lib/shop';
import { hasStoredSession, holdSupabaseUntil } from '@/lib/supabase';
import type { Product } from '@/lib/types';
import { paths } from '@/paths';

type Query = Parameters<QueryClient['prefetchQuery']>[0];

/**
 * Starts the requests of the page the visitor opened before React mounts, so
 * that the first screen on a phone comes sooner: they used to leave only once
 * the page's chunk had downloaded and rendered, after everything else. The page's own `useQuery` finds the same
 * query in flight (or answered) in the cache and does not ask again. When the
 * products arrive, the first cards' pictures are preloaded with high priority,
 * so they download while React renders the page rather than after.
 *
 * Returns whether the page's own data was used: only then may a pre-rendered
 * page be hydrated (its cards were filled from that data).
 */
export function prefetchFirstScreen(client: QueryClient, pathname: string, search = ''): boolean {
  const inline = inlineFirstScreen(pathname, search);
  if (inline) {
    client.setQueryData(shopCompanyQuery.queryKey, inline.company);
    // The first cards need no request: supabase-js waits for their pictures.
    holdSupabaseUntil(pageLoaded());
  }
  if (pathname === paths.home) {
    if (inline) client.setQueryData(featuredQuery.queryKey, inline.catalogue as Product[]);
    void client.prefetchQuery(featuredQuery as Query).then(() => {
      preloadImages(client.getQueryData<Product[]>(featuredQuery.queryKey) ?? [], 360, 280);
    });
  } else if (pathname === paths.store) {
    const filters = filtersFromSearch(new URLSearchParams(search));
    const [products, ...lists] = storeFirstScreenQueries(filters);
    if (inline) client.setQueryData(storeProductsQuery(filters, 1).queryKey, inline.catalogue as { products: Product[]; total: number });
    // With the page inline, this finds it fresh in the cache and asks nothing.
    void client.prefetchQuery(products as Query).then(() => {
      const page = client.getQueryData<{ products: Product[] }>(storeProductsQuery(filters, 1).queryKey);
      preloadImages((page?.products ?? []).slice(0, FIRST_SCREEN_CARDS), 320, 320);
    });
    // Errors surface in the page's own queries, which retry as they always did.
    for (const query of lists) void client.prefetchQuery(query as Query);
  }
  return inline !== undefined;
}

/**
 * The page's `load` event: its eager pictures (the first cards', preloaded
 * with high priority) have arrived; the lazy ones do not hold it back.
 */
function pageLoaded(): Promise<void> {
  if (document.readyState === 'complete') return Promise.resolve();
  return new Promise((resolve) => window.addEventListener('load', () => resolve(), { once: true }));
}

/** What the gateway puts into the page (gateway/src/first_screen/mod.rs). */
interface InlineFirstScreen {
  path: string;
  /** The query string it was made for, without `?`. */
  search: string;
  catalogue: unknown;
  company: ShopCompany | null;
}

/** The element the gateway writes the first screen's data into. */
export const FIRST_SCREEN_DATA_ID = 'shop-first-screen';

/**
 * The first page of the catalogue the gateway put into the page, if it was made
 * for this address and the visitor is not signed in. It was read as `anon`: a
 * staff member sees inactive products and fresh edits, so a signed-in visitor
 * asks the API as always. The session is looked for without loading
 * supabase-js (`hasStoredSession`).
 */
function inlineFirstScreen(pathname: string, search: string): InlineFirstScreen | undefined {
  const element = document.getElementById(FIRST_SCREEN_DATA_ID);
  if (!element?.textContent) return undefined;
  // Read once: after a client-side navigation the address is another one.
  element.remove();
  if (hasStoredSession()) return undefined;
  try {
    const data = JSON.parse(element.textContent) as InlineFirstScreen;
    return data.path === pathname && data.search === search.replace(/^\?/, '') ? data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `width` x `height` is the box the page's `ProductImage` asks for, so that an
 * uploaded picture is preloaded at the same `srcset` the card then uses.
 */
function preloadImages(products: readonly Product[], width: number, height: number): void {
  for (const product of products) {
    const link = document.createElement('link');
    link.rel = 'preload';
    link.as = 'image';
    const sized = productImageUrl(productImageSrc(product), width, height);
    link.href = sized.src;
    if (sized.srcSet) link.imageSrcset = sized.srcSet;
    link.fetchPriority = 'high';
    document.head.appendChild(link);
  }
}
