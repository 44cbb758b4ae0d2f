/** Every route of the shop (spec section 2), in one place. */
export const paths = {
  home: '/',
  store: '/store',
  auth: '/auth',
  register: '/register',
  other: '/other',
  admin: '/admin',
  adminProducts: '/admin/products',
  adminBrands: '/admin/brands',
  adminSettings: '/admin/settings',
} as const;

/** Anchors of the landing page's menu. */
export const landingAnchors = {
  company: 'empresa',
  products: 'productos',
  testimonials: 'testimonios',
  faq: 'preguntas-frecuentes',
  contact: 'contacto',
} as const;
