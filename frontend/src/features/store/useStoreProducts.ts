import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useReducer } from 'react';
import { watchTables } from '@/lib/api/watchTables';
import type { Product } from '@/lib/types';
import { storeProductQuery, storeProductsQuery } from './queries';
import { applyChange, initialStoreState, storeReducer, type ProductChange, type StoreFilters } from './storeState';

/**
 * Live updates wait this long after the first page arrived, so that the
 * realtime client's download and socket never compete with the first screen.
 */
const LIVE_AFTER_MS = 1500;

/**
 * The store's list: the reducer holds the filters and the pages shown, TanStack
 * Query fetches (and caches) the page asked for.
 */
export function useStoreProducts(initialFilters: () => StoreFilters) {
  const queryClient = useQueryClient();
  // A first page already in the cache (the one the gateway put into the page,
  // src/firstScreen.ts) shows in the first render: the pre-rendered page's
  // cards are hydrated rather than replaced by a skeleton.
  const [state, dispatch] = useReducer(storeReducer, undefined, () => {
    const filters = initialFilters();
    const cached = queryClient.getQueryData<{ products: Product[]; total: number }>(storeProductsQuery(filters, 1).queryKey);
    const start = { ...initialStoreState, filters };
    return cached ? storeReducer(start, { type: 'loaded', filters, page: 1, products: cached.products, total: cached.total }) : start;
  });
  const { filters, page } = state;
  const query = useQuery(storeProductsQuery(filters, page));

  const { data } = query;
  // `data` always belongs to the current `filters` and `page` (they are its
  // key); the reducer ignores a page it already holds.
  useEffect(() => {
    if (data) dispatch({ type: 'loaded', filters, page, products: data.products, total: data.total });
  }, [data, filters, page]);

  // Stock and prices follow the server without a reload (Realtime): a product
  // sold out shows 'Sin stock' in its drawer as soon as it is saved.
  const started = state.loadedPage > 0;
  useEffect(() => {
    if (!started) return;
    let stop: (() => void) | undefined;
    const timer = setTimeout(() => {
      stop = watchTables(
        'store-products',
        ['products'],
        (change) => {
          const product = change.record as ProductChange;
          if (typeof product.id !== 'number') return;
          dispatch({ type: 'changed', product });
          queryClient.setQueryData<Product>(storeProductQuery(product.id).queryKey, (cached) =>
            cached ? applyChange(cached, product) : cached,
          );
        },
        'UPDATE',
      );
    }, LIVE_AFTER_MS);
    return () => {
      clearTimeout(timer);
      stop?.();
    };
  }, [started, queryClient, dispatch]);

  return { state, dispatch, error: query.error };
}
