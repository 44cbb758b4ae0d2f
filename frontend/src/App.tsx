import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { lazy, Suspense, type ReactNode } from 'react';
import { BrowserRouter, Link, Route, Routes } from 'react-router';
import { Spinner } from '@/components/ui/feedback';
import { MAIN_CONTENT_ID, SkipLink } from '@/components/ui/skip-link';
import { Toaster } from '@/components/ui/toast';
import { RequireSession, SessionProvider } from '@/lib/session';
import { useDocumentTitle } from '@/lib/useDocumentTitle';
import { paths } from '@/paths';

// Every page is its own chunk: the public routes never download admin code
// (the budget of scripts/budget.mjs).
const LandingPage = lazy(() => import('@/features/landing/LandingPage'));
const StorePage = lazy(() => import('@/features/store/StorePage'));
const LoginPage = lazy(() => import('@/features/auth/LoginPage'));
const RegisterPage = lazy(() => import('@/features/register/RegisterPage'));
const OtherPage = lazy(() => import('@/features/other/OtherPage'));
const AdminLayout = lazy(() => import('@/features/admin/AdminLayout'));
const DashboardPage = lazy(() => import('@/features/dashboard/DashboardPage'));
const ProductsPage = lazy(() => import('@/features/products/ProductsPage'));
const BrandsPage = lazy(() => import('@/features/brands/BrandsPage'));
const SettingsPage = lazy(() => import('@/features/settings/SettingsPage'));

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: { queries: { staleTime: 30_000, retry: 1, refetchOnWindowFocus: false } },
  });
}

/** The app's one query cache; src/main.tsx starts the first screen's requests in it. */
export const queryClient = createQueryClient();

function PageFallback() {
  return <Spinner className="min-h-[60vh]" />;
}

function Page({ children }: { children: ReactNode }) {
  return <Suspense fallback={<PageFallback />}>{children}</Suspense>;
}

function NotFound() {
  useDocumentTitle('Página no encontrada');
  return (
    <main id={MAIN_CONTENT_ID} tabIndex={-1} className="mx-auto flex min-h-[60vh] max-w-md flex-col items-center justify-center gap-4 p-6 text-center">
      <h1 className="text-2xl font-bold">Página no encontrada</h1>
      <Link to={paths.home} className="text-brand-700 underline">
        Volver al inicio
      </Link>
    </main>
  );
}

export function AppRoutes() {
  return (
    <Routes>
      <Route path={paths.home} element={<Page><LandingPage /></Page>} />
      <Route path={paths.store} element={<Page><StorePage /></Page>} />
      <Route path={paths.auth} element={<Page><LoginPage /></Page>} />
      <Route path={paths.register} element={<Page><RegisterPage /></Page>} />
      <Route path={paths.other} element={<Page><OtherPage /></Page>} />
      <Route
        path={paths.admin}
        element={
          <RequireSession fallback={<PageFallback />}>
            <Page><AdminLayout /></Page>
          </RequireSession>
        }
      >
        <Route index element={<Page><DashboardPage /></Page>} />
        <Route path={paths.adminProducts} element={<Page><ProductsPage /></Page>} />
        <Route path={paths.adminBrands} element={<Page><BrandsPage /></Page>} />
        <Route path={paths.adminSettings} element={<Page><SettingsPage /></Page>} />
      </Route>
      <Route path="*" element={<NotFound />} />
    </Routes>
  );
}

/** Everything around the routes; the pre-render (src/prerender.tsx) puts a static router inside. */
export function AppShell({ client, children }: { client: QueryClient; children: ReactNode }) {
  return (
    <QueryClientProvider client={client}>
      <SessionProvider>
        <SkipLink />
        {children}
        <Toaster />
      </SessionProvider>
    </QueryClientProvider>
  );
}

export function App() {
  return (
    <AppShell client={queryClient}>
      <BrowserRouter>
        <AppRoutes />
      </BrowserRouter>
    </AppShell>
  );
}
