import { supabase } from '@/lib/supabase';
import type { Product } from '@/lib/types';
import type { ProductPayload } from '../productForm';

/** POST products: the form's fields plus who created it and when; returns the row. */
export async function createProduct(payload: ProductPayload, userId: string | undefined): Promise<Product> {
  if (!userId) throw new Error('Usuario no autenticado');
  const { data, error } = await (await supabase())
    .from('products')
    .insert({ ...payload, created_by: userId, created_at: new Date().toISOString() })
    .select('*')
    .single<Product>();
  if (error) throw new Error(`Error al crear producto: ${error.message}`);
  return data;
}
