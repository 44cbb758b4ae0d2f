import { supabase } from '@/lib/supabase';
import type { Company } from '@/lib/types';

export type CompanyChanges =
  | Pick<Company, 'name' | 'email' | 'phone'>
  | Pick<Company, 'display_category_stock' | 'display_product_stock' | 'display_users'>;

/**
 * PATCH companies: the user's own company only (row-level security refuses any
 * other), with who changed it and when; returns the row.
 */
export async function updateCompany(
  companyId: number | undefined,
  userId: string | undefined,
  changes: CompanyChanges,
): Promise<Company> {
  if (companyId === undefined || !userId) throw new Error('No hay empresa o usuario disponible');
  const { data, error } = await (await supabase())
    .from('companies')
    .update({ ...changes, updated_at: new Date().toISOString(), updated_by: userId })
    .eq('id', companyId)
    .select('*')
    .single<Company>();
  if (error) throw new Error(`Error al actualizar empresa: ${error.message}`);
  return data;
}
