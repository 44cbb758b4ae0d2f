import { supabase } from '@/lib/supabase';

/** How many categories the server lists (product_categories), as a head count. */
export async function countCategories(): Promise<number> {
  const { count, error } = await (await supabase()).from('product_categories').select('*', { count: 'exact', head: true });
  if (error) throw new Error(`Error en la API de categorías: ${error.message}`);
  return count ?? 0;
}
