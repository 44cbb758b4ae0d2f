import { supabase } from '@/lib/supabase';

/** How many brands there are, all or by status, as a head count. */
export async function countBrands(status?: boolean): Promise<number> {
  let query = (await supabase()).from('brands').select('*', { count: 'exact', head: true });
  if (status !== undefined) query = query.eq('status', status);
  const { count, error } = await query;
  if (error) throw new Error(`Error en la API de marcas: ${error.message}`);
  return count ?? 0;
}
