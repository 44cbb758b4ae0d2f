import { supabase } from '@/lib/supabase';
import type { Product } from '@/lib/types';

/**
 * One product the store may show, by id, for a link that opens its drawer
 * (`/store?producto=ID`) when it is not on the pages loaded: the store call
 * (spec section 7) narrowed to one row. `null` when it is not for sale.
 */
export async function fetchProduct(id: number, signal?: AbortSignal): Promise<Product | null> {
  const query = (await supabase())
    .from('products')
    .select('*, brands(id, name, description)')
    .eq('id', id)
    .eq('status', true)
    .gt('quantity', 0);
  const { data, error, status, statusText } = await (signal ? query.abortSignal(signal) : query).maybeSingle();
  if (error) throw new Error(status ? `Error en la API: ${status} ${statusText}`.trim() : error.message);
  return (data ?? null) as Product | null;
}
