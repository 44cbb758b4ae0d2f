import { useQuery } from '@tanstack/react-query';
import { useEffect, useReducer } from 'react';
import { storeProductsQuery } from './queries';
import { initialStoreState, storeReducer } from './storeState';

/**
 * The store's list: the reducer holds the filters and the pages shown, TanStack
 * Query fetches (and caches) the page asked for.
 */
export function useStoreProducts() {
  const [state, dispatch] = useReducer(storeReducer, initialStoreState);
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
