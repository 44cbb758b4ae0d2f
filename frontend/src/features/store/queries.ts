import { fetchCategories } from './api/fetchCategories';
import { fetchProducts } from './api/fetchProducts';
import { fetchStoreBrands } from './api/fetchStoreBrands';
import { fetchProduct } from './api/fetchProduct';
import { toRequest, type StoreFilters } from './storeState';

/**
 * The store's queries, key and fetcher together, so that the page and the
 * request started before React mounts (src/firstScreen.ts) are the same query
 * and TanStack Query answers the page from the one already in flight.
 */
export const storeProductsQuery = (filters: StoreFilters, page: number) => ({
  queryKey: ['store', 'products', filters, page] as const,
  queryFn: ({ signal }: { signal?: AbortSignal }) => fetchProducts(toRequest(filters, page), signal),
});

/** The filter bar's lists change rarely: kept 5 minutes. */
export const storeCategoriesQuery = {
  queryKey: ['store', 'categories'] as const,
  queryFn: fetchCategories,
  staleTime: 5 * 60_000,
};

export const storeBrandsQuery = {
  queryKey: ['store', 'brands'] as const,
  queryFn: fetchStoreBrands,
  staleTime: 5 * 60_000,
};

/** Cards whose pictures load first: the first row on a laptop, two rows on a phone. */
export const FIRST_SCREEN_CARDS = 4;

/** One product for a link that opens its drawer. */
export const storeProductQuery = (id: number) => ({
  queryKey: ['store', 'product', id] as const,
  queryFn: ({ signal }: { signal?: AbortSignal }) => fetchProduct(id, signal),
});

/** What the store's first screen asks for, with the filters its address holds. */
export function storeFirstScreenQueries(filters: StoreFilters) {
  return [storeProductsQuery(filters, 1), storeCategoriesQuery, storeBrandsQuery];
}
