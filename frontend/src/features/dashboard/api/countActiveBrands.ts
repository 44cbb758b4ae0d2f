import { supabase } from '@/lib/supabase';

/** How many brands are active (spec section 7, GET brands (dashboard)), as a head count. */
export async function countActiveBrands(): Promise<number> {
  const { count, error } = await (await supabase())
    .from('brands')
    .select('*', { count: 'exact', head: true })
    .eq('status', true);
  if (error) throw new Error(`Error en la API de marcas: ${error.message}`);
  return count ?? 0;
}
