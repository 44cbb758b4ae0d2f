import { supabase } from '@/lib/supabase';

/** GET product_categories (spec section 7): the category of every row. */
export async function fetchCategories(): Promise<string[]> {
  const { data, error } = await (await supabase()).from('product_categories').select('category');
  if (error) throw new Error(`Error en la API de categorías: ${error.message}`);
  return (data ?? []).map((row: { category: string }) => row.category);
}
