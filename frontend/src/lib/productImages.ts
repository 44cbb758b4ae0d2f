// The predefined product images an administrator can pick for a product
// instead of giving a URL or uploading a file (spec section 3, "Predefined
// image entry"; section 4, image source mode "list").
//
// The files live in public/assets/<brand>/<model>/<colour>.svg and are drawn by
// scripts/draw-devices.mjs; keep both lists in step (the test checks the files).
// `category` is an image category used to filter the picker, not a product
// category.

export interface PredefinedImage {
  /** Spanish label: model plus colour. */
  name: string;
  /** URL path served by the app, always under /assets/. */
  path: string;
  /** Image category used to filter the picker ('iPhone', 'Samsung', 'Apple Watch'). */
  category: string;
}

export const predefinedImages: readonly PredefinedImage[] = [
  // iPhone (15)
  { name: 'iPhone 13 Medianoche', path: '/assets/apple/iphone-13/medianoche.svg', category: 'iPhone' },
  { name: 'iPhone 13 Blanco Estelar', path: '/assets/apple/iphone-13/blanco-estelar.svg', category: 'iPhone' },
  { name: 'iPhone 13 Rosa', path: '/assets/apple/iphone-13/rosa.svg', category: 'iPhone' },
  { name: 'iPhone 14 Morado', path: '/assets/apple/iphone-14/morado.svg', category: 'iPhone' },
  { name: 'iPhone 14 Azul', path: '/assets/apple/iphone-14/azul.svg', category: 'iPhone' },
  { name: 'iPhone 15 Negro', path: '/assets/apple/iphone-15/negro.svg', category: 'iPhone' },
  { name: 'iPhone 15 Rosa', path: '/assets/apple/iphone-15/rosa.svg', category: 'iPhone' },
  { name: 'iPhone 15 Amarillo', path: '/assets/apple/iphone-15/amarillo.svg', category: 'iPhone' },
  { name: 'iPhone 15 Pro Titanio Natural', path: '/assets/apple/iphone-15-pro/titanio-natural.svg', category: 'iPhone' },
  { name: 'iPhone 15 Pro Titanio Azul', path: '/assets/apple/iphone-15-pro/titanio-azul.svg', category: 'iPhone' },
  { name: 'iPhone 15 Pro Titanio Negro', path: '/assets/apple/iphone-15-pro/titanio-negro.svg', category: 'iPhone' },
  { name: 'iPhone 16 Negro', path: '/assets/apple/iphone-16/negro.svg', category: 'iPhone' },
  { name: 'iPhone 16 Blanco', path: '/assets/apple/iphone-16/blanco.svg', category: 'iPhone' },
  { name: 'iPhone 16 Ultramarino', path: '/assets/apple/iphone-16/ultramarino.svg', category: 'iPhone' },
  { name: 'iPhone 16 Verde Azulado', path: '/assets/apple/iphone-16/verde-azulado.svg', category: 'iPhone' },
  // Samsung (10): A05, A05s, A06, A16, A26, A35
  { name: 'Samsung Galaxy A05 Negro', path: '/assets/samsung/galaxy-a05/negro.svg', category: 'Samsung' },
  { name: 'Samsung Galaxy A05 Plateado', path: '/assets/samsung/galaxy-a05/plateado.svg', category: 'Samsung' },
  { name: 'Samsung Galaxy A05s Negro', path: '/assets/samsung/galaxy-a05s/negro.svg', category: 'Samsung' },
  { name: 'Samsung Galaxy A05s Verde Claro', path: '/assets/samsung/galaxy-a05s/verde-claro.svg', category: 'Samsung' },
  { name: 'Samsung Galaxy A06 Negro', path: '/assets/samsung/galaxy-a06/negro.svg', category: 'Samsung' },
  { name: 'Samsung Galaxy A06 Azul Claro', path: '/assets/samsung/galaxy-a06/azul-claro.svg', category: 'Samsung' },
  { name: 'Samsung Galaxy A16 Negro', path: '/assets/samsung/galaxy-a16/negro.svg', category: 'Samsung' },
  { name: 'Samsung Galaxy A26 Menta', path: '/assets/samsung/galaxy-a26/menta.svg', category: 'Samsung' },
  { name: 'Samsung Galaxy A35 Azul Hielo', path: '/assets/samsung/galaxy-a35/azul-hielo.svg', category: 'Samsung' },
  { name: 'Samsung Galaxy A35 Lila', path: '/assets/samsung/galaxy-a35/lila.svg', category: 'Samsung' },
  // Apple Watch (1)
  { name: 'Apple Watch Ultra 2 Titanio', path: '/assets/apple/apple-watch-ultra-2/titanio.svg', category: 'Apple Watch' },
];

/** The distinct image categories, sorted alphabetically (Spanish collation). */
export function imageCategories(images: readonly PredefinedImage[] = predefinedImages): string[] {
  return [...new Set(images.map((image) => image.category))].sort((a, b) => a.localeCompare(b, 'es'));
}
