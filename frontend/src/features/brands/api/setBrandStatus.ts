import { supabase } from '@/lib/supabase';

/** PATCH brands by id: activate or deactivate, with who changed it and when. */
export async function setBrandStatus(id: number, status: boolean, userId: string | undefined): Promise<void> {
  if (!userId) throw new Error('Usuario no autenticado');
  const { data, error } = await (await supabase())
    .from('brands')
    .update({ status, updated_by: userId, updated_at: new Date().toISOString() })
    .eq('id', id)
    .select('id');
  if (error) throw new Error(error.message);
  if (!data || data.length === 0) throw new Error('Marca no encontrada');
}
