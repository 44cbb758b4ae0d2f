import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ChevronLeft, ChevronRight, Pencil, Power, PowerOff, Search } from 'lucide-react';
import { useId, useState } from 'react';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { Spinner } from '@/components/ui/feedback';
import { Input, Label, Select } from '@/components/ui/input';
import { toast } from '@/components/ui/toast';
import { categoryLabel, conditionLabel, conditions } from '@/lib/categories';
import { cn } from '@/lib/cn';
import { formatCOP } from '@/lib/format';
import { useSession } from '@/lib/session';
import type { Product } from '@/lib/types';
import { useDebouncedValue } from '@/lib/useDebouncedValue';
import { productImageUrl } from '@/features/store/api/productImageUrl';
import { fetchActiveBrands } from './api/fetchActiveBrands';
import { CATEGORY_PAGE_SIZE, fetchCategoryProducts, type FeaturedFilter } from './api/fetchCategoryProducts';
import { setProductStatus } from './api/setProductStatus';
import { conditionTone, stockTone } from './tones';

const FALLBACK_IMAGE = '/logo.svg';

/** Image fallback order (spec section 3): uploaded, then linked, then the logo. */
export function productImage(product: Pick<Product, 'link_image_s3' | 'link_image'>): string {
  return product.link_image_s3 || product.link_image || FALLBACK_IMAGE;
}

function ProductThumb({ product }: { product: Product }) {
  const sized = productImageUrl(productImage(product), 48, 48);
  return (
    <img
      src={sized.src}
      srcSet={sized.srcSet}
      alt=""
      loading="lazy"
      className="h-12 w-12 shrink-0 rounded-md border border-slate-200 bg-white object-contain"
      onError={(event) => {
        if (!event.currentTarget.src.endsWith(FALLBACK_IMAGE)) {
          event.currentTarget.removeAttribute('srcset');
          event.currentTarget.src = FALLBACK_IMAGE;
        }
      }}
    />
  );
}

function RowActions({
  product,
  onEdit,
  onToggle,
  busyId,
}: {
  product: Product;
  onEdit?: (product: Product) => void;
  onToggle?: (product: Product) => void;
  busyId?: number;
}) {
  const active = product.status !== false;
  return (
    <div className="flex justify-end gap-1">
      {onEdit ? (
        <Button variant="ghost" size="icon" aria-label={`Editar ${product.name}`} title="Editar" onClick={() => onEdit(product)}>
          <Pencil aria-hidden="true" className="h-4 w-4" />
        </Button>
      ) : null}
      {onToggle ? (
        <Button
          variant="ghost"
          size="icon"
          aria-label={`${active ? 'Desactivar' : 'Activar'} ${product.name}`}
          title={active ? 'Desactivar' : 'Activar'}
          // aria-disabled rather than disabled: a disabled button drops the
          // keyboard focus, which must stay on it.
          aria-disabled={busyId === product.id}
          onClick={() => busyId !== product.id && onToggle(product)}
          className={active ? 'text-red-700 hover:bg-red-50' : 'text-green-700 hover:bg-green-50'}
        >
          {active ? <PowerOff aria-hidden="true" className="h-4 w-4" /> : <Power aria-hidden="true" className="h-4 w-4" />}
        </Button>
      ) : null}
    </div>
  );
}

interface Props {
  category: string | null;
  onOpenChange: (open: boolean) => void;
  /** Edit and toggle appear only when given (spec section 2). */
  onEdit?: (product: Product) => void;
  canToggle?: boolean;
}

/** 'Productos de {category}': search, filters, table and pages of 10. */
export function CategoryProductsDialog({ category, onOpenChange, onEdit, canToggle = true }: Props) {
  return (
    <Dialog
      open={category !== null}
      onOpenChange={onOpenChange}
      title={`Productos de ${category ? categoryLabel(category) : ''}`}
      className="max-w-6xl!"
    >
      {category ? <CategoryProducts category={category} onEdit={onEdit} canToggle={canToggle} /> : null}
    </Dialog>
  );
}

function CategoryProducts({ category, onEdit, canToggle }: { category: string; onEdit?: (product: Product) => void; canToggle: boolean }) {
  const id = useId();
  const session = useSession();
  const userId = session.status === 'signed-in' ? session.session.user.id : undefined;
  const queryClient = useQueryClient();
  const [search, setSearch] = useState('');
  const [condition, setCondition] = useState('');
  const [brandId, setBrandId] = useState('');
  const [featured, setFeatured] = useState<FeaturedFilter>('all');
  const debouncedSearch = useDebouncedValue(search, 300);
  // The page belongs to one set of filters: any filter change starts again on page 1.
  const filterKey = JSON.stringify([debouncedSearch, condition, brandId, featured]);
  const [paging, setPaging] = useState({ filterKey, page: 1 });
  const page = paging.filterKey === filterKey ? paging.page : 1;
  const setPage = (next: number) => setPaging({ filterKey, page: next });

  const filters = { category, search: debouncedSearch, condition, brandId, featured, page };
  const products = useQuery({
    queryKey: ['products', 'category', filters],
    queryFn: () => fetchCategoryProducts(filters),
    placeholderData: keepPreviousData,
  });
  const brands = useQuery({ queryKey: ['products', 'active-brands'], queryFn: fetchActiveBrands });

  const toggle = useMutation({
    mutationFn: (product: Product) => setProductStatus(product.id, product.status === false, userId),
    onSuccess: async (_data, product) => {
      const activated = product.status === false;
      toast({
        title: activated ? 'Producto activado' : 'Producto desactivado',
        description: `El producto "${product.name}" ha sido ${activated ? 'activado' : 'desactivado'} correctamente.`,
      });
      await queryClient.invalidateQueries({ queryKey: ['products'] });
    },
    onError: (error) => {
      console.error(error);
      toast({ title: 'Error', description: 'Hubo un error al cambiar el estado del producto.', variant: 'destructive' });
    },
  });

  const toggleProduct = (product: Product) => toggle.mutate(product);
  const busyId = toggle.isPending ? toggle.variables?.id : undefined;
  const total = products.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / CATEGORY_PAGE_SIZE));
  const first = total === 0 ? 0 : (page - 1) * CATEGORY_PAGE_SIZE + 1;
  const last = Math.min(page * CATEGORY_PAGE_SIZE, total);
  const rows = products.data?.products ?? [];

  return (
    <div className="space-y-4">
      <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
        <div className="relative sm:col-span-2 lg:col-span-1">
          <Label htmlFor={`${id}-search`} className="sr-only">
            Buscar productos
          </Label>
          <Search aria-hidden="true" className="pointer-events-none absolute left-3 top-1/2 h-4 w-4 -translate-y-1/2 text-slate-400" />
          <Input
            id={`${id}-search`}
            type="search"
            placeholder="Buscar productos..."
            value={search}
            onChange={(event) => setSearch(event.target.value)}
            className="pl-9"
          />
        </div>
        <Select aria-label="Condición" value={condition} onChange={(event) => setCondition(event.target.value)}>
          <option value="">Todas las condiciones</option>
          {conditions.map((item) => (
            <option key={item.id} value={item.id}>
              {item.label}
            </option>
          ))}
        </Select>
        <Select aria-label="Marca" value={brandId} onChange={(event) => setBrandId(event.target.value)}>
          <option value="">Todas las marcas</option>
          {(brands.data ?? []).map((brand) => (
            <option key={brand.id} value={String(brand.id)}>
              {brand.name}
            </option>
          ))}
        </Select>
        <Select
          aria-label="Destacado"
          value={featured}
          onChange={(event) => setFeatured(event.target.value as FeaturedFilter)}
        >
          <option value="all">Todos</option>
          <option value="featured">Destacados</option>
          <option value="not-featured">No destacados</option>
        </Select>
      </div>

      {products.isPending ? (
        <Spinner className="py-16" label="Cargando productos..." />
      ) : products.isError ? (
        <div className="flex flex-col items-center gap-3 py-12 text-center">
          <p role="alert" className="text-sm text-red-700">
            {products.error.message}
          </p>
          <Button variant="outline" size="sm" onClick={() => void products.refetch()}>
            Reintentar
          </Button>
        </div>
      ) : rows.length === 0 ? (
        <p className="py-16 text-center text-sm text-slate-600">No se encontraron productos</p>
      ) : (
        <div className="relative" aria-busy={products.isFetching}>
          {products.isFetching ? (
            <div className="absolute inset-0 z-10 flex items-center justify-center bg-white/60">
              <Spinner label="Cargando productos..." />
            </div>
          ) : null}
          {/* Phones get one card per product; wider screens the table. */}
          <ul className="space-y-3 md:hidden">
            {rows.map((product) => {
              const active = product.status !== false;
              return (
                <li key={product.id} className={cn('rounded-md border border-slate-200 p-3', active ? 'bg-white' : 'bg-slate-50')}>
                  <div className="flex gap-3">
                    <ProductThumb product={product} />
                    <div className="min-w-0 flex-1">
                      <p className="font-medium text-slate-900">{product.name}</p>
                      <p className="truncate text-xs text-slate-500">{product.description}</p>
                      {product.color ? <p className="text-xs text-slate-500">Color: {product.color}</p> : null}
                      <p className="mt-1 font-semibold text-slate-900">{formatCOP(Number(product.price))}</p>
                    </div>
                  </div>
                  <div className="mt-3 flex flex-wrap items-center gap-1.5 text-xs">
                    <Badge tone={stockTone(product.quantity)}>Stock: {product.quantity}</Badge>
                    <Badge tone={conditionTone(product.condition)}>{conditionLabel(product.condition)}</Badge>
                    {product.featured ? <Badge tone="brand">Destacado</Badge> : null}
                    <Badge tone={active ? 'green' : 'neutral'}>{active ? 'Activo' : 'Inactivo'}</Badge>
                    <span className="text-slate-600">{product.brands?.name ?? 'Sin marca'}</span>
                  </div>
                  {onEdit || canToggle ? (
                    <div className="mt-2 border-t border-slate-100 pt-2">
                      <RowActions product={product} onEdit={onEdit} onToggle={canToggle ? toggleProduct : undefined} busyId={busyId} />
                    </div>
                  ) : null}
                </li>
              );
            })}
          </ul>
          <div className="hidden overflow-x-auto rounded-md border border-slate-200 md:block">
            <table className="w-full min-w-[900px] text-left text-sm">
              <thead className="bg-slate-50 text-xs font-semibold uppercase tracking-wide text-slate-600">
                <tr>
                  <th scope="col" className="px-4 py-3">Producto</th>
                  <th scope="col" className="px-4 py-3">Precio</th>
                  <th scope="col" className="px-4 py-3">Stock</th>
                  <th scope="col" className="px-4 py-3">Marca</th>
                  <th scope="col" className="px-4 py-3">Condición</th>
                  <th scope="col" className="px-4 py-3">Destacado</th>
                  <th scope="col" className="px-4 py-3">Activo</th>
                  {onEdit || canToggle ? <th scope="col" className="px-4 py-3 text-right">Acciones</th> : null}
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-200">
                {rows.map((product) => {
                  const active = product.status !== false;
                  return (
                    <tr key={product.id} className={active ? 'bg-white' : 'bg-slate-50 text-slate-500'}>
                      <td className="px-4 py-3">
                        <div className="flex items-center gap-3">
                          <ProductThumb product={product} />
                          <div className="min-w-0 max-w-64">
                            <p className="truncate font-medium text-slate-900">{product.name}</p>
                            <p className="truncate text-xs text-slate-500" title={product.description ?? undefined}>
                              {product.description}
                            </p>
                            {product.color ? <p className="text-xs text-slate-500">Color: {product.color}</p> : null}
                          </div>
                        </div>
                      </td>
                      <td className="whitespace-nowrap px-4 py-3 font-medium text-slate-900">{formatCOP(Number(product.price))}</td>
                      <td className="px-4 py-3">
                        <Badge tone={stockTone(product.quantity)}>{product.quantity}</Badge>
                      </td>
                      <td className="px-4 py-3">{product.brands?.name ?? 'Sin marca'}</td>
                      <td className="px-4 py-3">
                        <Badge tone={conditionTone(product.condition)}>{conditionLabel(product.condition)}</Badge>
                      </td>
                      <td className="px-4 py-3">
                        {product.featured ? <Badge tone="brand">Destacado</Badge> : <span className="text-slate-500">No</span>}
                      </td>
                      <td className="px-4 py-3">
                        <Badge tone={active ? 'green' : 'neutral'}>{active ? 'Activo' : 'Inactivo'}</Badge>
                      </td>
                      {onEdit || canToggle ? (
                        <td className="px-4 py-3">
                          <RowActions product={product} onEdit={onEdit} onToggle={canToggle ? toggleProduct : undefined} busyId={busyId} />
                        </td>
                      ) : null}
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        </div>
      )}

      {total > 0 ? (
        <nav aria-label="Paginación" className="flex flex-col items-center justify-between gap-3 sm:flex-row">
          <p className="text-sm text-slate-600">
            Mostrando {first}–{last} de {total} productos
          </p>
          <div className="flex items-center gap-2">
            <Button variant="outline" size="sm" disabled={page <= 1} onClick={() => setPage(page - 1)}>
              <ChevronLeft aria-hidden="true" className="h-4 w-4" />
              Anterior
            </Button>
            <span className="text-sm text-slate-700">
              Página {page} de {pages}
            </span>
            <Button variant="outline" size="sm" disabled={page >= pages} onClick={() => setPage(page + 1)}>
              Siguiente
              <ChevronRight aria-hidden="true" className="h-4 w-4" />
            </Button>
          </div>
        </nav>
      ) : null}
    </div>
  );
}
