import { supabase } from '@/lib/supabase';
import type { Brand } from '@/lib/types';

export type StoreBrand = Pick<Brand, 'id' | 'name'>;

/**
 * GET brands for the store's filter (spec section 7): active brands that have
 * at least one product the store shows. `products!inner()` embeds nothing but
 * keeps only brands with a matching product, one row per brand (PostgREST's
 * empty inner embed), so no de-duplication is needed here.
 */
export async function fetchStoreBrands(): Promise<StoreBrand[]> {
  const { data, error } = await (await supabase())
    .from('brands')
    .select('id, name, products!inner()')
    .eq('status', true)
    .eq('products.status', true)
    .gt('products.quantity', 0)
    .order('name', { ascending: true });
  if (error) throw new Error(`Error en la API de marcas: ${error.message}`);
  return (data ?? []).map((row: { id: number; name: string }) => ({ id: row.id, name: row.name }));
}
