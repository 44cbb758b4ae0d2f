import { supabase } from '@/lib/supabase';

/** The shop's public fields (view `public.shop_company`, sql/101_shop_company_public.sql). */
export interface ShopCompany {
  name: string;
  email: string | null;
  phone: string | null;
  display_category_stock: boolean;
  display_product_stock: boolean;
  display_users: boolean;
}

/**
 * GET shop_company: what every visitor may read of the shop's company. `null`
 * when the shop has none yet. Shared by the public pages and the admin area,
 * hence here and not in a feature.
 */
export async function fetchShopCompany(): Promise<ShopCompany | null> {
  const { data, error } = await (await supabase()).from('shop_company').select('*').maybeSingle<ShopCompany>();
  if (error) throw new Error(`Error al cargar empresa: ${error.message}`);
  return data;
}
