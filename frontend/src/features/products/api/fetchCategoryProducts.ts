import { supabase } from '@/lib/supabase';
import type { Product } from '@/lib/types';

/** The category modal's page size (spec section 9). */
export const CATEGORY_PAGE_SIZE = 10;

export type FeaturedFilter = 'all' | 'featured' | 'not-featured';

export interface CategoryProductsQuery {
  category: string;
  search: string;
  condition: string;
  brandId: string;
  featured: FeaturedFilter;
  /** 1-based. */
  page: number;
}

export interface ProductPage {
  products: Product[];
  total: number;
}

/** One page of a category's products with their brand, newest first (GET products (admin)). */
export async function fetchCategoryProducts(query: CategoryProductsQuery): Promise<ProductPage> {
  const from = (query.page - 1) * CATEGORY_PAGE_SIZE;
  let request = (await supabase())
    .from('products')
    .select('*, brands(id, name, description)', { count: 'exact' })
    .eq('category', query.category);
  const search = query.search.trim();
  // The typed text is matched literally: its own wildcards are dropped.
  if (search) request = request.ilike('name', `%${search.replace(/[%_\\]/g, '')}%`);
  if (query.condition) request = request.eq('condition', query.condition);
  if (query.brandId) request = request.eq('brand_id', Number(query.brandId));
  if (query.featured !== 'all') request = request.eq('featured', query.featured === 'featured');
  const { data, count, error } = await request
    .order('created_at', { ascending: false })
    .order('id', { ascending: false })
    .range(from, from + CATEGORY_PAGE_SIZE - 1)
    .returns<Product[]>();
  if (error) throw new Error(`Error al cargar productos: ${error.message}`);
  return { products: data ?? [], total: count ?? 0 };
}
