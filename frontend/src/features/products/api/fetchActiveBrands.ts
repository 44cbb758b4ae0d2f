import { supabase } from '@/lib/supabase';
import type { Brand } from '@/lib/types';

/** Active brands by name, for the product form and the brand filter (GET brands (product form)). */
export async function fetchActiveBrands(): Promise<Brand[]> {
  const { data, error } = await (await supabase())
    .from('brands')
    .select('*')
    .eq('status', true)
    .order('name', { ascending: true })
    .returns<Brand[]>();
  if (error) throw new Error(error.message || 'Error al cargar marcas');
  return data ?? [];
}
