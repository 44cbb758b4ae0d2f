import type { QueryClient } from '@tanstack/react-query';
import { featuredQuery } from '@/features/landing/queries';
import { FIRST_SCREEN_CARDS, storeFirstScreenQueries, storeProductsQuery } from '@/features/store/queries';
import { filtersFromSearch } from '@/features/store/storeUrl';
import { productImageUrl } from '@/features/store/api/productImageUrl';
import { productImageSrc } from '@/lib/shop';
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
 */
export function prefetchFirstScreen(client: QueryClient, pathname: string, search = ''): void {
  if (pathname === paths.home) {
    void client.prefetchQuery(featuredQuery as Query).then(() => {
      preloadImages(client.getQueryData<Product[]>(featuredQuery.queryKey) ?? [], 360, 280);
    });
  } else if (pathname === paths.store) {
    const filters = filtersFromSearch(new URLSearchParams(search));
    const [products, ...lists] = storeFirstScreenQueries(filters);
    void client.prefetchQuery(products as Query).then(() => {
      const page = client.getQueryData<{ products: Product[] }>(storeProductsQuery(filters, 1).queryKey);
      preloadImages((page?.products ?? []).slice(0, FIRST_SCREEN_CARDS), 320, 320);
    });
    // Errors surface in the page's own queries, which retry as they always did.
    for (const query of lists) void client.prefetchQuery(query as Query);
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
