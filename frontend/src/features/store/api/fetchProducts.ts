import { supabase } from '@/lib/supabase';
import type { Product } from '@/lib/types';

/** Products per page of the store (spec section 9). */
export const STORE_PAGE_SIZE = 20;

/**
 * The store's sort choices. The spec lists a 'relevance' filter without saying
 * what it does, so it is a sort: 'relevance' is the spec's own order (featured
 * first, then price descending) and stays the default; the others are the
 * usual shop orders.
 */
export type StoreSort = 'relevance' | 'price-asc' | 'price-desc' | 'newest';

export interface ProductsRequest {
  /** 1-based. */
  page: number;
  search?: string;
  category?: string;
  brandId?: number;
  condition?: string;
  featured?: boolean;
  sort?: StoreSort;
}

export interface ProductsPage {
  products: Product[];
  /** Every product matching the filters, from Content-Range (`count: 'exact'`). */
  total: number;
}

/** `%` and `_` typed by a visitor are matched literally, not as LIKE wildcards. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * GET products for the store (spec section 7): active products in stock with
 * their brand, filtered, ordered, one page, with the exact total.
 */
export async function fetchProducts(request: ProductsRequest, signal?: AbortSignal): Promise<ProductsPage> {
  let query = (await supabase())
    .from('products')
    .select('*, brands(id, name, description)', { count: 'exact' })
    .eq('status', true)
    .gt('quantity', 0);
  if (request.category) query = query.eq('category', request.category);
  if (request.brandId !== undefined) query = query.eq('brand_id', request.brandId);
  if (request.condition) query = query.eq('condition', request.condition);
  if (request.featured !== undefined) query = query.eq('featured', request.featured);
  const search = request.search?.trim();
  if (search) query = query.ilike('name', `%${escapeLike(search)}%`);

  switch (request.sort ?? 'relevance') {
    case 'price-asc':
      query = query.order('price', { ascending: true });
      break;
    case 'price-desc':
      query = query.order('price', { ascending: false });
      break;
    case 'newest':
      query = query.order('created_at', { ascending: false });
      break;
    case 'relevance':
      query = query.order('featured', { ascending: false, nullsFirst: false }).order('price', { ascending: false });
      break;
  }
  // Equal prices would otherwise leave the row order to the planner, and a
  // product could show on two pages or on none.
  query = query.order('id', { ascending: true });

  const from = (request.page - 1) * STORE_PAGE_SIZE;
  const builder = query.range(from, from + STORE_PAGE_SIZE - 1);
  const { data, error, count, status, statusText } = await (signal ? builder.abortSignal(signal) : builder);
  if (error) {
    throw new Error(status ? `Error en la API: ${status} ${statusText}`.trim() : error.message);
  }
  return { products: (data ?? []) as Product[], total: count ?? 0 };
}
