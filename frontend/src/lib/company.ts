import { useQuery } from '@tanstack/react-query';
import { appConfig } from '@/lib/config';
import { shopName } from '@/lib/shop';
import { fetchShopCompany } from './api/fetchShopCompany';

/** The query of the shop's public fields; Configuración refreshes it after a save. */
export const shopCompanyQuery = { queryKey: ['shop', 'company'] as const, queryFn: fetchShopCompany, staleTime: 5 * 60_000 };

export interface ShopFace {
  name: string;
  email: string;
  phone: string;
  showCategoryStock: boolean;
  showProductStock: boolean;
  showUsers: boolean;
}

/**
 * What the site shows of the shop: the company's name, e-mail and
 * telephone as Configuración saved them, and its three display settings.
 * Until they arrive (or if the shop has no company or they fail to load),
 * the name of lib/shop.ts and the contacts of the configuration stand in, and
 * every setting is on, as the columns' defaults are.
 */
export function useShopFace(): ShopFace {
  const { data } = useQuery(shopCompanyQuery);
  const config = appConfig();
  return {
    name: data?.name || shopName,
    email: data?.email || config.contactEmail,
    phone: data?.phone || config.contactPhone,
    showCategoryStock: data?.display_category_stock ?? true,
    showProductStock: data?.display_product_stock ?? true,
    showUsers: data?.display_users ?? true,
  };
}
