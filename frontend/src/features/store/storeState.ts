import type { Product } from '@/lib/types';
import type { ProductsRequest, StoreSort } from './api/fetchProducts';

/** What the visitor chose in the search box and the filter bar. */
export interface StoreFilters {
  search: string;
  /** Category id, '' for all. */
  category: string;
  /** Brand id as the select holds it, '' for all. */
  brandId: string;
  /** Condition id, '' for all. */
  condition: string;
  sort: StoreSort;
}

export const initialFilters: StoreFilters = { search: '', category: '', brandId: '', condition: '', sort: 'relevance' };

export interface StoreState {
  filters: StoreFilters;
  /** The page asked for (1-based). */
  page: number;
  /** The last page whose rows are in `products`; 0 before any arrived. */
  loadedPage: number;
  products: Product[];
  /** Matching products on the server; null until a page arrived. */
  total: number | null;
}

export const initialStoreState: StoreState = { filters: initialFilters, page: 1, loadedPage: 0, products: [], total: null };

export type StoreAction =
  | { type: 'filter'; key: keyof StoreFilters; value: string }
  | { type: 'reset' }
  /** All filters at once: the address changed (Back, Forward). */
  | { type: 'filters'; filters: StoreFilters }
  | { type: 'loadMore' }
  | { type: 'loaded'; filters: StoreFilters; page: number; products: Product[]; total: number }
  /** A listed product changed on the server (Realtime): its new columns. */
  | { type: 'changed'; product: ProductChange };

/** A product's row as a change carries it: its columns, without the embedded brand. */
export type ProductChange = Partial<Omit<Product, 'brands'>> & Pick<Product, 'id'>;

/**
 * A listed product with a change applied. The embedded brand stays while the
 * brand does; a product moved to another brand shows none until the list is
 * fetched again.
 */
export function applyChange(product: Product, change: ProductChange): Product {
  const brands = change.brand_id === undefined || change.brand_id === product.brand_id ? product.brands : null;
  return { ...product, ...change, brands };
}

/**
 * Store paging (spec section 4): page 1 replaces the list, later pages append,
 * and any filter change goes back to page 1. A page that arrives for filters or
 * a page no longer asked for (a slow answer overtaken by a newer choice) is
 * dropped.
 */
export function storeReducer(state: StoreState, action: StoreAction): StoreState {
  switch (action.type) {
    case 'filter': {
      if (state.filters[action.key] === action.value) return state;
      return { ...state, filters: { ...state.filters, [action.key]: action.value }, page: 1 };
    }
    case 'reset': {
      const same = (Object.keys(initialFilters) as Array<keyof StoreFilters>).every(
        (key) => state.filters[key] === initialFilters[key],
      );
      return same ? state : { ...state, filters: initialFilters, page: 1 };
    }
    case 'filters': {
      const same = (Object.keys(initialFilters) as Array<keyof StoreFilters>).every(
        (key) => state.filters[key] === action.filters[key],
      );
      return same ? state : { ...state, filters: action.filters, page: 1 };
    }
    case 'loadMore':
      return hasMore(state) && !isLoadingPage(state) ? { ...state, page: state.page + 1 } : state;
    case 'loaded': {
      if (action.filters !== state.filters || action.page !== state.page) return state;
      if (action.page === 1) {
        return { ...state, loadedPage: 1, products: action.products, total: action.total };
      }
      // Rows can shift between two requests (stock sold out, a product added):
      // a product already listed is not listed twice.
      const listed = new Set(state.products.map((p) => p.id));
      const appended = action.products.filter((p) => !listed.has(p.id));
      return { ...state, loadedPage: action.page, products: [...state.products, ...appended], total: action.total };
    }
    case 'changed': {
      const index = state.products.findIndex((p) => p.id === action.product.id);
      if (index < 0) return state;
      // Deactivated: no longer in the store (visitors are not even told, RLS
      // hides the change from them; staff browsing the store are).
      if (action.product.status === false) {
        const products = state.products.filter((_, i) => i !== index);
        return { ...state, products, total: state.total === null ? null : state.total - 1 };
      }
      const products = state.products.map((p, i) => (i === index ? applyChange(p, action.product) : p));
      return { ...state, products };
    }
  }
}

/** More products exist on the server than the list holds. */
export function hasMore(state: StoreState): boolean {
  return state.total !== null && state.products.length < state.total;
}

/** The page asked for has not arrived yet. */
export function isLoadingPage(state: StoreState): boolean {
  return state.loadedPage !== state.page;
}

/** Any filter differs from its default. */
export function hasActiveFilters(filters: StoreFilters): boolean {
  return Boolean(filters.search.trim() || filters.category || filters.brandId || filters.condition || filters.sort !== 'relevance');
}

/** The store call for the page asked for. */
export function toRequest(filters: StoreFilters, page: number): ProductsRequest {
  const brandId = Number.parseInt(filters.brandId, 10);
  return {
    page,
    search: filters.search.trim() || undefined,
    category: filters.category || undefined,
    brandId: Number.isNaN(brandId) ? undefined : brandId,
    condition: filters.condition || undefined,
    sort: filters.sort,
  };
}
