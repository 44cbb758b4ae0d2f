import { supabase } from '@/lib/supabase';
import type { Brand } from '@/lib/types';

/** The admin brand list's size (spec section 9). */
export const BRAND_LIST_LIMIT = 20;

export type BrandStatusFilter = 'all' | 'active' | 'inactive';

/** GET brands (admin): newest first, at most 20, narrowed by the search and the status filter. */
export async function fetchBrands(search: string, status: BrandStatusFilter): Promise<Brand[]> {
  let query = (await supabase()).from('brands').select('*');
  const term = search.trim().replace(/[%_\\]/g, '');
  if (term) query = query.ilike('name', `%${term}%`);
  if (status !== 'all') query = query.eq('status', status === 'active');
  const { data, error } = await query
    .order('created_at', { ascending: false })
    .order('id', { ascending: false })
    .limit(BRAND_LIST_LIMIT)
    .returns<Brand[]>();
  if (error) throw new Error(`Error en la API de marcas: ${error.message}`);
  return data ?? [];
}
