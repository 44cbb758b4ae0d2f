import { fetchFeaturedProducts } from './api/fetchFeaturedProducts';

/** The landing's featured models; also started before React mounts (src/firstScreen.ts). */
export const featuredQuery = {
  queryKey: ['landing', 'featured'] as const,
  queryFn: ({ signal }: { signal?: AbortSignal }) => fetchFeaturedProducts(signal),
};
