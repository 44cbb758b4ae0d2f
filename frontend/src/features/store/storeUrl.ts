import type { StoreSort } from './api/fetchProducts';
import { initialFilters, type StoreFilters } from './storeState';

/**
 * The store's state in its address (a shared or reloaded link shows what its
 * sender saw): `/store?buscar=galaxy&categoria=celulares&marca=2&condicion=nuevo&orden=price-asc&producto=17`.
 * Defaults are left out, so the plain store is `/store`.
 */
export const storeParams = {
  search: 'buscar',
  category: 'categoria',
  brandId: 'marca',
  condition: 'condicion',
  sort: 'orden',
  product: 'producto',
} as const;

const sorts: readonly StoreSort[] = ['relevance', 'price-asc', 'price-desc', 'newest'];

export function filtersFromSearch(search: URLSearchParams): StoreFilters {
  const sort = search.get(storeParams.sort) as StoreSort | null;
  const brandId = search.get(storeParams.brandId) ?? '';
  return {
    search: search.get(storeParams.search) ?? '',
    category: search.get(storeParams.category) ?? '',
    brandId: /^\d+$/.test(brandId) ? brandId : '',
    condition: search.get(storeParams.condition) ?? '',
    sort: sort && sorts.includes(sort) ? sort : initialFilters.sort,
  };
}

/** `search` with the filters written in (the product and any other parameter kept). */
export function withFilters(search: URLSearchParams, filters: StoreFilters): URLSearchParams {
  const next = new URLSearchParams(search);
  const values: Record<keyof StoreFilters, string> = {
    search: filters.search.trim(),
    category: filters.category,
    brandId: filters.brandId,
    condition: filters.condition,
    sort: filters.sort === initialFilters.sort ? '' : filters.sort,
  };
  for (const key of Object.keys(values) as Array<keyof StoreFilters>) {
    if (values[key]) next.set(storeParams[key], values[key]);
    else next.delete(storeParams[key]);
  }
  return next;
}

/** The product whose drawer the address opens, if any. */
export function productFromSearch(search: URLSearchParams): number | null {
  const id = search.get(storeParams.product) ?? '';
  return /^\d+$/.test(id) ? Number(id) : null;
}

export function sameFilters(a: StoreFilters, b: StoreFilters): boolean {
  return (Object.keys(a) as Array<keyof StoreFilters>).every((key) => a[key] === b[key]);
}
