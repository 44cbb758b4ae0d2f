import { supabase } from '@/lib/supabase';
import { uploadFileName } from '../imageFile';

/** The product images' bucket and folder (policies/storage.sql). */
export const PRODUCT_BUCKET = 'store-products';
export const PRODUCT_FOLDER = 'products';

/**
 * Uploads a product image under a fresh unique name, never overwriting, cached
 * for an hour, and returns its public URL (spec section 7, Image upload).
 */
export async function uploadProductImage(file: File): Promise<string> {
  const path = `${PRODUCT_FOLDER}/${uploadFileName(file.name)}`;
  const bucket = (await supabase()).storage.from(PRODUCT_BUCKET);
  const { error } = await bucket.upload(path, file, {
    cacheControl: '3600',
    upsert: false,
    contentType: file.type || undefined,
  });
  if (error) throw new Error(error.message);
  return bucket.getPublicUrl(path).data.publicUrl;
}
