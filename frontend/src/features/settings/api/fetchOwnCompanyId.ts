import { supabase } from '@/lib/supabase';

/** The signed-in user's company, from their profile (GET profiles, company_id by user_id). */
export async function fetchOwnCompanyId(userId: string): Promise<number> {
  const { data, error } = await (await supabase())
    .from('profiles')
    .select('company_id')
    .eq('user_id', userId)
    .maybeSingle<{ company_id: number | null }>();
  if (error) throw new Error(`Error al cargar perfil: ${error.message}`);
  if (data?.company_id == null) throw new Error('Usuario no está asociado a ninguna empresa');
  return data.company_id;
}
