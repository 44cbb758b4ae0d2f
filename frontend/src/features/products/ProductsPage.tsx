import { useQuery } from '@tanstack/react-query';
import {
  Battery,
  Cable,
  Gamepad2,
  Headphones,
  Keyboard,
  Package,
  Plus,
  Search,
  Shield,
  SlidersHorizontal,
  Smartphone,
  Speaker,
  Tablet,
  Watch,
  Magnet,
  Layers,
  type LucideIcon,
} from 'lucide-react';
import { useMemo, useState } from 'react';
import { Button } from '@/components/ui/button';
import { useShopFace } from '@/lib/company';
import { Card } from '@/components/ui/card';
import { Skeleton } from '@/components/ui/feedback';
import { Input, Label } from '@/components/ui/input';
import { PageHeader } from '@/components/ui/page-header';
import { categories } from '@/lib/categories';
import type { Product } from '@/lib/types';
import { useDebouncedValue } from '@/lib/useDebouncedValue';
import { countCategoryProducts } from './api/countCategoryProducts';
import { CategoryProductsDialog } from './CategoryProductsDialog';
import { ProductFormDialog } from './ProductFormDialog';
import { useDocumentTitle } from '@/lib/useDocumentTitle';
import { useRefetchOnChange } from '@/lib/useRefetchOnChange';

const icons: Record<string, LucideIcon> = {
  parlantes: Speaker,
  vidrios: Shield,
  celulares: Smartphone,
  tablet: Tablet,
  cases: Layers,
  cables: Cable,
  cargadores: Battery,
  smartwatch: Watch,
  audifonos: Headphones,
  'teclado-mouse': Keyboard,
  holder: Magnet,
  'accesorios-varios': Gamepad2,
};

/** Per-category counts: one head request per fixed category, in parallel. */
async function fetchCategoryCounts(): Promise<Record<string, number>> {
  const counts = await Promise.all(categories.map((category) => countCategoryProducts(category.id)));
  return Object.fromEntries(categories.map((category, index) => [category.id, counts[index] ?? 0]));
}

function normalize(text: string): string {
  return text.normalize('NFD').replace(/\p{Diacritic}/gu, '').toLowerCase();
}

export default function ProductsPage() {
  useDocumentTitle('Productos | Administración');
  // Configuración's 'display category stock' (lib/company.ts).
  const { showCategoryStock } = useShopFace();
  const [search, setSearch] = useState('');
  const debouncedSearch = useDebouncedValue(search, 300);
  const [openCategory, setOpenCategory] = useState<string | null>(null);
  const [form, setForm] = useState<{ open: boolean; product: Product | null; category?: string }>({
    open: false,
    product: null,
  });
  const counts = useQuery({ queryKey: ['products', 'category-counts'], queryFn: fetchCategoryCounts });
  // Counts and the open category's table follow other staff members' edits.
  useRefetchOnChange('admin-products', ['products', 'brands'], ['products']);

  const shown = useMemo(() => {
    const term = normalize(debouncedSearch.trim());
    return categories.filter((category) => !term || normalize(category.label).includes(term));
  }, [debouncedSearch]);

  return (
    <>
      <PageHeader
        title="Productos"
        subtitle="Gestiona las categorías y productos"
        actions={
          <Button onClick={() => setForm({ open: true, product: null })}>
            <Plus aria-hidden="true" className="h-4 w-4" />
            Agregar producto
          </Button>
        }
      />

      <div className="mb-6 flex flex-col gap-3 sm:flex-row">
        <div className="relative flex-1">
          <Label htmlFor="category-search" className="sr-only">
            Buscar categorías
          </Label>
          <Search aria-hidden="true" className="pointer-events-none absolute left-3 top-1/2 h-4 w-4 -translate-y-1/2 text-slate-400" />
          <Input
            id="category-search"
            type="search"
            placeholder="Buscar categorías..."
            value={search}
            onChange={(event) => setSearch(event.target.value)}
            className="pl-9"
          />
        </div>
        {/* The spec keeps this button without an action. */}
        <Button variant="outline">
          <SlidersHorizontal aria-hidden="true" className="h-4 w-4" />
          Filtros
        </Button>
      </div>

      {counts.isError ? (
        <Card className="flex flex-col items-center gap-3 border-red-200 bg-red-50 p-8 text-center">
          <p role="alert" className="text-sm text-red-800">
            {counts.error.message}
          </p>
          <Button variant="outline" onClick={() => void counts.refetch()}>
            Reintentar
          </Button>
        </Card>
      ) : shown.length === 0 ? (
        <p className="py-16 text-center text-sm text-slate-600">No se encontraron categorías</p>
      ) : (
        <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3 xl:grid-cols-4">
          {shown.map((category) => {
            const Icon = icons[category.id] ?? Package;
            const count = counts.data?.[category.id];
            return (
              <li key={category.id}>
                <Card className="flex h-full flex-col p-5 transition-shadow hover:shadow-md">
                  <div className="flex items-start gap-3">
                    <span aria-hidden="true" className="flex h-11 w-11 shrink-0 items-center justify-center rounded-lg bg-brand-50 text-brand-700">
                      <Icon className="h-5 w-5" />
                    </span>
                    <div className="min-w-0">
                      {/* Whole names ('Accesorios Varios'), wrapping if need be. */}
                      <h2 className="font-semibold leading-tight break-words text-slate-900">{category.label}</h2>
                      {!showCategoryStock ? null : counts.isPending ? (
                        <Skeleton className="mt-1.5 h-4 w-20" />
                      ) : (
                        <p className="text-sm text-slate-600" data-testid={`count-${category.id}`}>
                          {count === 1 ? '1 producto' : `${count ?? 0} productos`}
                        </p>
                      )}
                    </div>
                  </div>
                  <Button
                    variant="outline"
                    size="sm"
                    className="mt-5 w-full"
                    aria-label={`Ver Productos de ${category.label}`}
                    onClick={() => setOpenCategory(category.id)}
                  >
                    Ver Productos
                  </Button>
                </Card>
              </li>
            );
          })}
        </ul>
      )}

      <CategoryProductsDialog
        category={openCategory}
        onOpenChange={(open) => !open && setOpenCategory(null)}
        onEdit={(product) => setForm({ open: true, product })}
      />
      <ProductFormDialog
        open={form.open}
        onOpenChange={(open) => setForm((current) => ({ ...current, open }))}
        product={form.product}
        category={form.category}
      />
    </>
  );
}
