import { useState, type ImgHTMLAttributes } from 'react';
import { defaultProductImage, productImageSrc } from '@/lib/shop';
import { productImageUrl } from '@/features/store/api/productImageUrl';
import { cn } from '@/lib/cn';

interface ProductImageProps extends Omit<ImgHTMLAttributes<HTMLImageElement>, 'src' | 'width' | 'height'> {
  product: { link_image_s3: string | null; link_image: string | null };
  alt: string;
  width: number;
  height: number;
  /**
   * One of the first pictures on screen: fetched at once with high priority
   * (the first screen on a phone waits for them), where the rest wait until
   * they come near the viewport.
   */
  priority?: boolean;
  /** The rendered width for the browser to pick a source (`sizes`). */
  sizes?: string;
}

/**
 * A product's picture in the spec's fallback order, lazy-loaded (unless it is
 * a `priority` one) with its size set so the grid does not jump, and an
 * uploaded one asked for at that size (`srcset` for dense screens). A URL
 * that fails to load (a removed upload, a mistyped link) falls back to the
 * logo too.
 */
export function ProductImage({ product, alt, width, height, className, priority = false, ...props }: ProductImageProps) {
  const preferred = productImageSrc(product);
  const [failed, setFailed] = useState<string | null>(null);
  const src = failed === preferred ? defaultProductImage : preferred;
  const sized = productImageUrl(src, width, height);
  return (
    <img
      src={sized.src}
      srcSet={sized.srcSet}
      alt={alt}
      width={width}
      height={height}
      loading={priority ? 'eager' : 'lazy'}
      fetchPriority={priority ? 'high' : 'auto'}
      decoding="async"
      onError={() => setFailed(preferred)}
      className={cn('object-contain', src === defaultProductImage && 'p-[26%] opacity-50 grayscale-[30%]', className)}
      {...props}
    />
  );
}
