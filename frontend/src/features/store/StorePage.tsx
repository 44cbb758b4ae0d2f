import { useQuery } from '@tanstack/react-query';
import { MAIN_CONTENT_ID } from '@/components/ui/skip-link';
import { PackageSearch } from 'lucide-react';
import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { Button } from '@/components/ui/button';
import { Skeleton } from '@/components/ui/feedback';
import { FloatingWhatsAppButton } from '@/components/ui/whatsapp-button';
import { useShopFace } from '@/lib/company';
import { AfterHydration, FirstScreenSlot } from '@/lib/prerender';
import type { Product } from '@/lib/types';
import { useDebouncedValue } from '@/lib/useDebouncedValue';
import { whenIdle } from '@/lib/preload';
import { messages } from '@/lib/whatsapp';
import type { StoreBrand } from './api/fetchStoreBrands';
import { FilterBar } from './components/FilterBar';
import { ProductCard } from './components/ProductCard';
import { StoreFooter } from './components/StoreFooter';
import { StoreHeader } from './components/StoreHeader';
import { hasActiveFilters, hasMore, isLoadingPage } from './storeState';
import { FIRST_SCREEN_CARDS, storeBrandsQuery, storeCategoriesQuery, storeProductQuery } from './queries';
import { filtersFromSearch, productFromSearch, sameFilters, storeParams, withFilters } from './storeUrl';
import { useStoreProducts } from './useStoreProducts';

// The drawer (and Radix Dialog under it) loads apart from the page, fetched
// while the browser is idle, to keep the store's first load within budget.
const loadDrawer = () => import('./components/ProductDrawer');
const ProductDrawer = lazy(() => loadDrawer().then((m) => ({ default: m.ProductDrawer })));

/** Logs a failed filter list: the spec keeps those errors off the screen (section 8). */
function useLoggedQuery<T>(options: { queryKey: readonly string[]; queryFn: () => Promise<T>; staleTime: number }, empty: T): T {
  const query = useQuery(options);
  useEffect(() => {
    if (query.error) console.error(query.error.message);
  }, [query.error]);
  return query.data ?? empty;
}

const noCategories: string[] = [];
const noBrands: StoreBrand[] = [];

export default function StorePage() {
  // The filters, the search and the open product live in the address
  // (storeUrl.ts): a reload or a shared link shows the same, Back closes the
  // drawer and walks back through opened products.
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const { state, dispatch, error } = useStoreProducts(() => filtersFromSearch(params));
  const [searchText, setSearchText] = useState(() => filtersFromSearch(params).search);
  const search = useDebouncedValue(searchText, 300);
  const productId = productFromSearch(params);
  // Whether this page put the open product in the address (then closing goes Back).
  const openedHere = useRef(false);
  const listed = productId === null ? undefined : state.products.find((product) => product.id === productId);
  const linked = useQuery({
    ...storeProductQuery(productId ?? 0),
    enabled: productId !== null && !listed && state.loadedPage > 0,
  });
  const selected: Product | null = productId === null ? null : (listed ?? linked.data ?? null);
  // Mounted from the first opening on, so it can close (and hand focus back) normally.
  const [drawerUsed, setDrawerUsed] = useState(productId !== null);
  const serverCategories = useLoggedQuery(storeCategoriesQuery, noCategories);
  const brands = useLoggedQuery(storeBrandsQuery, noBrands);

  useEffect(() => {
    dispatch({ type: 'filter', key: 'search', value: search });
  }, [search, dispatch]);

  // Filters chosen on the page go into the address, replacing it (Back does
  // not step through every keystroke).
  useEffect(() => {
    if (!sameFilters(filtersFromSearch(params), state.filters)) {
      setParams(withFilters(params, state.filters), { replace: true });
    }
    // Only a change of the filters writes the address (hence the one dependency).
  }, [state.filters]);

  // An address changed from outside (Back, Forward) sets the filters.
  useEffect(() => {
    const wanted = filtersFromSearch(params);
    if (!sameFilters(wanted, state.filters)) {
      dispatch({ type: 'filters', filters: wanted });
      setSearchText(wanted.search);
    }
    if (productFromSearch(params) !== null) setDrawerUsed(true);
    // Only a change of the address sets the filters (hence the one dependency).
  }, [params]);

  useEffect(() => {
    document.title = 'Tienda | Celulares y accesorios';
    return whenIdle(loadDrawer);
  }, []);

  function openProduct(product: Product) {
    setDrawerUsed(true);
    const next = new URLSearchParams(params);
    next.set(storeParams.product, String(product.id));
    openedHere.current = true;
    setParams(next);
  }

  function closeProduct() {
    if (openedHere.current) {
      openedHere.current = false;
      navigate(-1);
    } else {
      const next = new URLSearchParams(params);
      next.delete(storeParams.product);
      setParams(next, { replace: true });
    }
  }

  const { showProductStock } = useShopFace();
  const grid = useRef<HTMLUListElement>(null);
  // The index of the first card a "Mostrar más productos" asked for.
  const focusFrom = useRef<number | null>(null);
  const lastPageIn = state.page > 1 && !isLoadingPage(state) && !hasMore(state);
  useEffect(() => {
    const from = focusFrom.current;
    if (from === null || isLoadingPage(state)) return;
    focusFrom.current = null;
    // While more pages remain the focus stays on the button; once the last
    // page arrived the button is gone, and the focus would fall to the body:
    // it goes to the first product that came in (WCAG 2.4.3, focus order).
    if (lastPageIn) grid.current?.children[from]?.querySelector<HTMLElement>('button')?.focus();
  }, [state, lastPageIn]);

  if (error) {
    return (
      <main id={MAIN_CONTENT_ID} tabIndex={-1} className="mx-auto max-w-3xl p-6">
        <p role="alert" className="text-red-700">
          Error: {error.message}
        </p>
      </main>
    );
  }

  const firstLoad = state.loadedPage === 0;
  const moreRequested = () => {
    if (loadingMore) return;
    focusFrom.current = state.products.length;
    dispatch({ type: 'loadMore' });
  };
  const refreshing = !firstLoad && state.page === 1 && isLoadingPage(state);
  const loadingMore = state.page > 1 && isLoadingPage(state);
  const clear = hasActiveFilters(state.filters)
    ? () => {
        setSearchText('');
        dispatch({ type: 'reset' });
      }
    : null;

  return (
    <div className="flex min-h-dvh flex-col">
      <StoreHeader />
      <main id={MAIN_CONTENT_ID} tabIndex={-1} className="mx-auto w-full max-w-7xl flex-1 px-4 pt-8 sm:px-6">
        <div className="mb-6">
          <h1 className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl">Tienda</h1>
          <p className="mt-1 text-slate-600">Celulares y accesorios con envío a toda Colombia.</p>
        </div>

        <FilterBar
          searchText={searchText}
          onSearchText={setSearchText}
          filters={state.filters}
          onFilter={(key, value) => dispatch({ type: 'filter', key, value })}
          onClear={clear}
          serverCategories={serverCategories}
          brands={brands}
        />

        <FirstScreenSlot name="store-results">
          <section aria-labelledby="results-title" aria-busy={firstLoad || refreshing || loadingMore} className="mt-6">
            <h2 id="results-title" className="sr-only">
              Productos
            </h2>
            {firstLoad ? (
              <GridSkeleton />
            ) : state.products.length === 0 ? (
              <EmptyResults />
            ) : (
              <>
                <p className="mb-4 text-sm text-slate-600" aria-live="polite">
                  {state.total === 1 ? '1 producto' : `${state.total ?? 0} productos`}
                </p>
                <ul
                  ref={grid}
                  className={`grid grid-cols-2 gap-3 sm:gap-5 md:grid-cols-3 xl:grid-cols-4 ${refreshing ? 'opacity-60 transition-opacity' : ''}`}
                >
                  {state.products.map((product, index) => (
                    <li key={product.id} className="flex">
                      <ProductCard
                        product={product}
                        onOpen={openProduct}
                        priority={index < FIRST_SCREEN_CARDS}
                        showStock={showProductStock}
                      />
                    </li>
                  ))}
                </ul>
              </>
            )}

            {!firstLoad && !refreshing && (hasMore(state) || loadingMore) ? (
              <div className="mt-8 flex justify-center">
                {/* aria-disabled, not disabled: the focus stays on the button while the page loads. */}
                <Button
                  variant="outline"
                  size="lg"
                  onClick={moreRequested}
                  aria-disabled={loadingMore}
                >
                  {loadingMore ? 'Cargando...' : 'Mostrar más productos'}
                </Button>
              </div>
            ) : null}
          </section>
        </FirstScreenSlot>
      </main>
      {/* Below the first screen: drawn once hydrated (lib/prerender.tsx). */}
      <AfterHydration>
        <StoreFooter />
      </AfterHydration>
      {drawerUsed ? (
        <Suspense fallback={null}>
          <ProductDrawer product={selected} onClose={closeProduct} />
        </Suspense>
      ) : null}
      <FloatingWhatsAppButton message={messages.contact} />
    </div>
  );
}

function GridSkeleton() {
  return (
    <ul className="grid grid-cols-2 gap-3 sm:gap-5 md:grid-cols-3 xl:grid-cols-4">
      {Array.from({ length: 8 }, (_, i) => (
        <li key={i} className="overflow-hidden rounded-xl border border-slate-200 bg-white">
          <Skeleton className="aspect-square rounded-none" />
          <div className="space-y-2 p-4">
            <Skeleton className="h-3 w-1/3" />
            <Skeleton className="h-4 w-full" />
            <Skeleton className="h-4 w-2/3" />
            <Skeleton className="h-9 w-full" />
          </div>
        </li>
      ))}
    </ul>
  );
}

function EmptyResults() {
  return (
    <div className="flex flex-col items-center gap-2 rounded-xl border border-dashed border-slate-300 bg-white px-6 py-16 text-center">
      <PackageSearch aria-hidden="true" className="h-10 w-10 text-slate-400" />
      <p className="font-semibold text-slate-900">No se encontraron productos</p>
      <p className="text-sm text-slate-600">Prueba con otra búsqueda o quita algunos filtros.</p>
    </div>
  );
}
