import { supabase } from '@/lib/supabase';
import type { Company } from '@/lib/types';

/** GET companies by id (single). */
export async function fetchCompany(companyId: number): Promise<Company> {
  const { data, error } = await (await supabase()).from('companies').select('*').eq('id', companyId).single<Company>();
  if (error) throw new Error(`Error al cargar empresa: ${error.message}`);
  return data;
}
