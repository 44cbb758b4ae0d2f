import { supabase } from '@/lib/supabase';

/** How many products carry a brand (Counts: per brand by brand_id), as a head count. */
export async function countBrandProducts(brandId: number): Promise<number> {
  const { count, error } = await (await supabase())
    .from('products')
    .select('*', { count: 'exact', head: true })
    .eq('brand_id', brandId);
  if (error) throw new Error(error.message);
  return count ?? 0;
}
