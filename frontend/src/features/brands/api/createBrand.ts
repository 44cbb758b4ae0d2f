import { supabase } from '@/lib/supabase';
import type { BrandInput } from '../brandForm';

/** POST brands: name, description, status and the author. */
export async function createBrand(input: BrandInput, userId: string | undefined): Promise<void> {
  if (!userId) throw new Error('Usuario no autenticado');
  const { error } = await (await supabase())
    .from('brands')
    .insert({ name: input.name, description: input.description, status: input.status, created_by: userId });
  if (error) throw new Error(error.message);
}
