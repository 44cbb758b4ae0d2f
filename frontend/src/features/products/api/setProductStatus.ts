import { supabase } from '@/lib/supabase';

/** PATCH products by id: the status toggle, with who changed it and when. */
export async function setProductStatus(id: number, status: boolean, userId: string | undefined): Promise<void> {
  if (!userId) throw new Error('Usuario no autenticado');
  const { data, error } = await (await supabase())
    .from('products')
    .update({ status, updated_by: userId, updated: new Date().toISOString() })
    .eq('id', id)
    .select('id');
  if (error) throw new Error(`Error al cambiar estado del producto: ${error.message}`);
  if (!data || data.length === 0) throw new Error('Producto no encontrado');
}
