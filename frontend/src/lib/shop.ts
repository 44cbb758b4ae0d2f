/**
 * Facts about the shop shown on the public screens (spec section 1). The chat
 * number, e-mail and phone are run-time configuration (lib/config.ts); these
 * are the copy that does not change per deployment.
 */
export const shopName = 'Tienda Celulares Meta';

/** Opening hours (spec section 1). */
export const openingHours = [
  { days: 'Lunes a sábado', hours: '9:00 AM - 7:00 PM' },
  { days: 'Domingo', hours: '10:00 AM - 4:00 PM' },
] as const;

/**
 * The shop's social profiles. The spec names no accounts, so these point to
 * each network's home until the shop's handles are known.
 */
export const socialLinks = [
  { network: 'facebook', label: 'Facebook', href: 'https://www.facebook.com/' },
  { network: 'instagram', label: 'Instagram', href: 'https://www.instagram.com/' },
  { network: 'tiktok', label: 'TikTok', href: 'https://www.tiktok.com/' },
] as const;

export type SocialNetwork = (typeof socialLinks)[number]['network'];

/** The logo every product without an image falls back to. */
export const defaultProductImage = '/logo.svg';

/** Image fallback order (spec section 3): uploaded image, then link_image, then the logo. */
export function productImageSrc(product: { link_image_s3: string | null; link_image: string | null }): string {
  return product.link_image_s3 || product.link_image || defaultProductImage;
}
