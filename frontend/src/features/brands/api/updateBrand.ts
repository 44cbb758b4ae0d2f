import { supabase } from '@/lib/supabase';
import type { BrandInput } from '../brandForm';

/** PATCH brands by id: name, description, status, and who changed it and when. */
export async function updateBrand(id: number, input: BrandInput, userId: string | undefined): Promise<void> {
  if (!userId) throw new Error('Usuario no autenticado');
  const { data, error } = await (await supabase())
    .from('brands')
    .update({ ...input, updated_at: new Date().toISOString(), updated_by: userId })
    .eq('id', id)
    .select('id');
  if (error) throw new Error(error.message);
  if (!data || data.length === 0) throw new Error('Marca no encontrada');
}
