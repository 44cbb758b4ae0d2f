import { supabase } from '@/lib/supabase';
import type { Product } from '@/lib/types';
import type { ProductPayload } from '../productForm';

/** PATCH products by id: the form's fields plus who changed it and when; returns the row. */
export async function updateProduct(id: number, payload: ProductPayload, userId: string | undefined): Promise<Product> {
  if (!userId) throw new Error('Usuario no autenticado');
  const { data, error } = await (await supabase())
    .from('products')
    .update({ ...payload, updated_by: userId, updated: new Date().toISOString() })
    .eq('id', id)
    .select('*')
    .maybeSingle<Product>();
  if (error) throw new Error(`Error al actualizar producto: ${error.message}`);
  if (!data) throw new Error('Producto no encontrado');
  return data;
}
