import { countActiveBrands } from './api/countActiveBrands';
import { countCategories } from './api/countCategories';
import { countProducts } from './api/countProducts';

/** The days that make a product new (spec section 9). */
export const NEW_PRODUCT_DAYS = 30;

export interface DashboardCounts {
  products: number;
  categories: number;
  newProducts: number;
  activeBrands: number;
  featuredProducts: number;
}

/** The dashboard's figures, fetched in parallel. */
export async function fetchDashboardCounts(now: Date = new Date()): Promise<DashboardCounts> {
  const createdSince = new Date(now.getTime() - NEW_PRODUCT_DAYS * 24 * 60 * 60 * 1000).toISOString();
  const [products, categories, newProducts, activeBrands, featuredProducts] = await Promise.all([
    countProducts(),
    countCategories(),
    countProducts({ createdSince }),
    countActiveBrands(),
    countProducts({ featured: true }),
  ]);
  return { products, categories, newProducts, activeBrands, featuredProducts };
}
