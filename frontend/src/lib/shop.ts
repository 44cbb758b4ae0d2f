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
 * The social networks the footer can link to, in its order. The addresses are
 * run-time configuration (`socialLinks` in lib/config.ts, the gateway's
 * SHOP_FACEBOOK_URL and friends): a network without one is not shown.
 */
export const socialNetworks = [
  { network: 'facebook', label: 'Facebook' },
  { network: 'instagram', label: 'Instagram' },
  { network: 'tiktok', label: 'TikTok' },
] as const;

export type SocialNetwork = (typeof socialNetworks)[number]['network'];

/** The configured networks with their addresses, in the footer's order. */
export function configuredSocialLinks(links: Partial<Record<string, string>>) {
  return socialNetworks.flatMap(({ network, label }) => {
    const href = links[network];
    return href && /^https?:\/\//i.test(href) ? [{ network, label, href }] : [];
  });
}

/** The logo every product without an image falls back to. */
export const defaultProductImage = '/logo.svg';

/** Image fallback order (spec section 3): uploaded image, then link_image, then the logo. */
export function productImageSrc(product: { link_image_s3: string | null; link_image: string | null }): string {
  return product.link_image_s3 || product.link_image || defaultProductImage;
}
