import { supabase } from '@/lib/supabase';

/** The product images' bucket (policies/storage.sql). */
const BUCKET = 'store-products';

export interface SizedImage {
  src: string;
  /** `1x` and `2x` candidates, when the image can be resized by the gateway. */
  srcSet?: string;
}

/**
 * An uploaded product image at the size it is shown: the gateway's
 * `/storage/v1/render/image/public/...` through supabase-js
 * `getPublicUrl(path, {transform})`, fitted in a `width` x `height` box
 * (CSS pixels) and twice that for dense screens; browsers that accept WebP
 * get WebP. A URL outside the bucket (`link_image`, the logo) is left as it is.
 */
export function productImageUrl(url: string, width: number, height: number): SizedImage {
  const bucket = supabase().storage.from(BUCKET);
  const prefix = bucket.getPublicUrl('').data.publicUrl;
  if (!url.startsWith(prefix) || url.length === prefix.length) return { src: url };
  const path = decodeURIComponent(url.slice(prefix.length).split('?')[0] ?? '');
  const at = (scale: number) =>
    bucket.getPublicUrl(path, { transform: { width: width * scale, height: height * scale, resize: 'contain' } }).data
      .publicUrl;
  return { src: at(1), srcSet: `${at(1)} 1x, ${at(2)} 2x` };
}
