import { supabase } from '@/lib/supabase';
import type { Product } from '@/lib/types';

/** The landing asks for 3 featured products (spec section 9). */
export const FEATURED_LIMIT = 3;

/**
 * The landing's featured models: the store call (spec section 7) narrowed to
 * featured products, first page of 3.
 */
export async function fetchFeaturedProducts(signal?: AbortSignal): Promise<Product[]> {
  const builder = (await supabase())
    .from('products')
    .select('*, brands(id, name, description)')
    .eq('status', true)
    .gt('quantity', 0)
    .eq('featured', true)
    .order('price', { ascending: false })
    .order('id', { ascending: true })
    .limit(FEATURED_LIMIT);
  const { data, error, status, statusText } = await (signal ? builder.abortSignal(signal) : builder);
  if (error) throw new Error(status ? `Error en la API: ${status} ${statusText}`.trim() : error.message);
  return (data ?? []) as Product[];
}
