import { supabase } from '@/lib/supabase';

export interface ProductCountFilter {
  /** Only products created at or after this instant. */
  createdSince?: string;
  /** Only featured products. */
  featured?: boolean;
}

/**
 * How many catalogue products (active, in stock: spec section 7, GET products
 * (dashboard)) match: a head request with an exact count, no rows downloaded.
 */
export async function countProducts(filter: ProductCountFilter = {}): Promise<number> {
  let query = (await supabase())
    .from('products')
    .select('*', { count: 'exact', head: true })
    .not('status', 'is', false)
    .gt('quantity', 0);
  if (filter.createdSince) query = query.gte('created_at', filter.createdSince);
  if (filter.featured !== undefined) query = query.eq('featured', filter.featured);
  const { count, error, status } = await query;
  if (error) throw new Error(`Error en la API de productos: ${status}`);
  return count ?? 0;
}
