import { useQuery } from '@tanstack/react-query';
import { useEffect, useReducer } from 'react';
import { storeProductsQuery } from './queries';
import { initialStoreState, storeReducer, type StoreFilters } from './storeState';

/**
 * The store's list: the reducer holds the filters and the pages shown, TanStack
 * Query fetches (and caches) the page asked for.
 */
export function useStoreProducts(initialFilters: () => StoreFilters) {
  const [state, dispatch] = useReducer(storeReducer, undefined, () => ({ ...initialStoreState, filters: initialFilters() }));
  const { filters, page } = state;
  const query = useQuery(storeProductsQuery(filters, page));

  const { data } = query;
  // `data` always belongs to the current `filters` and `page` (they are its
  // key); the reducer ignores a page it already holds.
  useEffect(() => {
    if (data) dispatch({ type: 'loaded', filters, page, products: data.products, total: data.total });
  }, [data, filters, page]);

  return { state, dispatch, error: query.error };
}
