import { supabase } from '@/lib/supabase';

/** How many products (active or not) a category holds, as a head count. */
export async function countCategoryProducts(category: string): Promise<number> {
  const { count, error } = await (await supabase())
    .from('products')
    .select('*', { count: 'exact', head: true })
    .eq('category', category);
  if (error) throw new Error(`Error al cargar productos: ${error.message}`);
  return count ?? 0;
}
