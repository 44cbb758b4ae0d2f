import { supabase } from '@/lib/supabase';

/** The signed-in user's full name from their profile (GET profiles by user_id), null without one. */
export async function fetchOwnFullName(userId: string): Promise<string | null> {
  const { data, error } = await (await supabase())
    .from('profiles')
    .select('full_name')
    .eq('user_id', userId)
    .maybeSingle<{ full_name: string | null }>();
  if (error) throw new Error(`Error al cargar perfil: ${error.message}`);
  return data?.full_name ?? null;
}
