import { supabase } from '@/lib/supabase';
import type { Profile } from '@/lib/types';

/** Every profile's full name by user id (GET profiles, all), for the brand cards' authors. */
export async function fetchProfileNames(): Promise<Map<string, string>> {
  const { data, error } = await (await supabase()).from('profiles').select('user_id, full_name').returns<Profile[]>();
  if (error) throw new Error(`Error al cargar perfil: ${error.message}`);
  return new Map((data ?? []).filter((row) => row.full_name).map((row) => [row.user_id, row.full_name as string]));
}
