import { appConfig } from '@/lib/config';

/** The product images' bucket (policies/storage.sql). */
const BUCKET = 'store-products';

export interface SizedImage {
  src: string;
  /** `1x` and `2x` candidates, when the image can be resized by the gateway. */
  srcSet?: string;
}

/**
 * An uploaded product image at the size it is shown: the gateway's
 * `/storage/v1/render/image/public/...`, fitted in a `width` x `height` box
 * (CSS pixels) and twice that for dense screens; browsers that accept WebP
 * get WebP. A URL outside the bucket (`link_image`, the logo) is left as it is.
 *
 * The URLs are the ones supabase-js `getPublicUrl(path, {transform})` makes
 * (a test compares them), written here because a card shows its picture
 * before supabase-js has loaded (src/lib/supabase.ts): storage-js builds
 * `encodeURI(<url>/storage/v1/render/image/public/<bucket>/<path>)` and the
 * transform as a query string
 * (https://github.com/supabase/supabase-js/blob/master/packages/core/storage-js/src/packages/StorageFileApi.ts).
 */
export function productImageUrl(url: string, width: number, height: number): SizedImage {
  const prefix = publicUrl('object', '');
  if (!url.startsWith(prefix) || url.length === prefix.length) return { src: url };
  const path = decodeURIComponent(url.slice(prefix.length).split('?')[0] ?? '');
  const at = (scale: number) =>
    publicUrl('render/image', path) +
    `?${new URLSearchParams({ width: String(width * scale), height: String(height * scale), resize: 'contain' })}`;
  return { src: at(1), srcSet: `${at(1)} 1x, ${at(2)} 2x` };
}

/** `getPublicUrl`'s URL of `path` in the bucket, without a query. */
function publicUrl(kind: 'object' | 'render/image', path: string): string {
  // supabase-js resolves `storage/v1` against the URL with a trailing slash.
  const storage = new URL('storage/v1', appConfig().supabaseUrl.replace(/\/?$/, '/')).href;
  return encodeURI(`${storage}/${kind}/public/${BUCKET}/${path.replace(/^\/+/, '')}`);
}
