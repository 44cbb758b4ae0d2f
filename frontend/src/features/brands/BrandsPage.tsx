import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  CalendarClock,
  CalendarPlus,
  CheckCircle2,
  MoreVertical,
  Package,
  Pencil,
  Plus,
  Power,
  PowerOff,
  Search,
  Tags,
  XCircle,
  type LucideIcon,
} from 'lucide-react';
import { useState } from 'react';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { DropdownMenu } from '@/components/ui/dropdown-menu';
import { Skeleton } from '@/components/ui/feedback';
import { Input, Label } from '@/components/ui/input';
import { PageHeader } from '@/components/ui/page-header';
import { toast } from '@/components/ui/toast';
import { cn } from '@/lib/cn';
import { useShopFace } from '@/lib/company';
import { formatDate } from '@/lib/format';
import { useSession } from '@/lib/session';
import type { Brand } from '@/lib/types';
import { useDebouncedValue } from '@/lib/useDebouncedValue';
import { countBrandProducts } from './api/countBrandProducts';
import { countBrands } from './api/countBrands';
import { countProducts } from './api/countProducts';
import { fetchBrands, type BrandStatusFilter } from './api/fetchBrands';
import { fetchProfileNames } from './api/fetchProfileNames';
import { setBrandStatus } from './api/setBrandStatus';
import { BrandFormDialog } from './BrandFormDialog';
import { useDocumentTitle } from '@/lib/useDocumentTitle';
import { useRefetchOnChange } from '@/lib/useRefetchOnChange';

const filters: Array<{ id: BrandStatusFilter; label: string }> = [
  { id: 'all', label: 'Todos' },
  { id: 'active', label: 'Activos' },
  { id: 'inactive', label: 'Inactivos' },
];

async function fetchBrandStats() {
  const [total, active, inactive, products] = await Promise.all([
    countBrands(),
    countBrands(true),
    countBrands(false),
    countProducts(),
  ]);
  return { total, active, inactive, products };
}

function StatCard({ label, value, icon: Icon, tone }: { label: string; value?: number; icon: LucideIcon; tone: string }) {
  return (
    <Card className="flex items-center gap-4 p-4">
      <span aria-hidden="true" className={cn('flex h-10 w-10 shrink-0 items-center justify-center rounded-lg', tone)}>
        <Icon className="h-5 w-5" />
      </span>
      <div>
        <p className="text-sm text-slate-600">{label}</p>
        {value === undefined ? (
          <Skeleton className="mt-1 h-6 w-10" />
        ) : (
          <p className="text-2xl font-bold text-slate-900" data-testid={`brand-stat-${label}`}>
            {value}
          </p>
        )}
      </div>
    </Card>
  );
}

function ProductCount({ brandId }: { brandId: number }) {
  // Products change on the products page: count again on every visit.
  const count = useQuery({
    queryKey: ['brands', 'product-count', brandId],
    queryFn: () => countBrandProducts(brandId),
    refetchOnMount: 'always',
  });
  return (
    <span className="inline-flex items-center gap-1.5 text-sm text-slate-700">
      <Package aria-hidden="true" className="h-4 w-4 text-slate-500" />
      {count.isPending ? '…' : count.isError ? '—' : count.data === 1 ? '1 producto' : `${count.data} productos`}
    </span>
  );
}

function BrandCard({
  brand,
  names,
  onEdit,
  onToggle,
}: {
  brand: Brand;
  names?: Map<string, string>;
  onEdit: () => void;
  onToggle: () => void;
}) {
  const author = (userId: string | null) => (userId ? names?.get(userId) : undefined);
  // Configuración's 'display users' (lib/company.ts): no names when off.
  const { showUsers } = useShopFace();
  const createdBy = showUsers ? author(brand.created_by) : undefined;
  const updatedBy = showUsers ? author(brand.updated_by) : undefined;
  return (
    <Card className={cn('flex h-full flex-col p-5', !brand.status && 'bg-slate-50')}>
      <div className="flex items-start justify-between gap-3">
        <div className="min-w-0">
          <h2 className="truncate text-lg font-semibold text-slate-900">{brand.name}</h2>
          <Badge tone={brand.status ? 'green' : 'red'} className="mt-1">
            {brand.status ? 'Activo' : 'Inactivo'}
          </Badge>
        </div>
        <DropdownMenu
          label={`Acciones de ${brand.name}`}
          trigger={<MoreVertical aria-hidden="true" className="h-5 w-5" />}
          items={[
            { label: 'Editar', icon: <Pencil aria-hidden="true" className="h-4 w-4" />, onSelect: onEdit },
            brand.status
              ? { label: 'Desactivar', icon: <PowerOff aria-hidden="true" className="h-4 w-4" />, onSelect: onToggle, tone: 'danger' }
              : { label: 'Activar', icon: <Power aria-hidden="true" className="h-4 w-4" />, onSelect: onToggle },
          ]}
        />
      </div>
      <p className="mt-3 line-clamp-3 flex-1 text-sm text-slate-600">{brand.description}</p>
      <div className="mt-4">
        <ProductCount brandId={brand.id} />
      </div>
      {/* A date never breaks at its hyphens (2026-11-25 on one line). */}
      <dl className="mt-4 space-y-1.5 border-t border-slate-200 pt-3 text-xs text-slate-600">
        <div className="flex items-start gap-1.5">
          <CalendarPlus aria-hidden="true" className="mt-px h-3.5 w-3.5 shrink-0 text-slate-400" />
          <dt>Creado el</dt>
          <dd>
            <span className="whitespace-nowrap">{formatDate(brand.created_at)}</span>
            {createdBy ? <span> por {createdBy}</span> : null}
          </dd>
        </div>
        {brand.updated_at ? (
          <div className="flex items-start gap-1.5">
            <CalendarClock aria-hidden="true" className="mt-px h-3.5 w-3.5 shrink-0 text-slate-400" />
            <dt>Modificado el</dt>
            <dd>
              <span className="whitespace-nowrap">{formatDate(brand.updated_at)}</span>
              {updatedBy ? <span> por {updatedBy}</span> : null}
            </dd>
          </div>
        ) : null}
      </dl>
    </Card>
  );
}

export default function BrandsPage() {
  useDocumentTitle('Marcas | Administración');
  const session = useSession();
  const userId = session.status === 'signed-in' ? session.session.user.id : undefined;
  const queryClient = useQueryClient();
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState<BrandStatusFilter>('all');
  const [form, setForm] = useState<{ open: boolean; brand: Brand | null }>({ open: false, brand: null });
  const debouncedSearch = useDebouncedValue(search, 300);

  const brands = useQuery({
    queryKey: ['brands', 'list', debouncedSearch.trim(), status],
    queryFn: () => fetchBrands(debouncedSearch, status),
    placeholderData: keepPreviousData,
  });
  const stats = useQuery({ queryKey: ['brands', 'stats'], queryFn: fetchBrandStats, refetchOnMount: 'always' });
  const names = useQuery({ queryKey: ['brands', 'profile-names'], queryFn: fetchProfileNames });
  // The list, its counts and statistics follow other staff members' edits.
  useRefetchOnChange('admin-brands', ['brands', 'products'], ['brands']);

  const toggle = useMutation({
    mutationFn: (brand: Brand) => setBrandStatus(brand.id, !brand.status, userId),
    onSuccess: async (_data, brand) => {
      toast(
        brand.status
          ? { title: 'Marca desactivada', description: `La marca "${brand.name}" ha sido desactivada.` }
          : { title: 'Marca activada', description: `La marca "${brand.name}" ha sido activada.` },
      );
      await queryClient.invalidateQueries({ queryKey: ['brands'] });
    },
    onError: (error, brand) => {
      console.error(error);
      toast({
        title: 'Error',
        description: brand.status ? 'No se pudo desactivar la marca' : 'No se pudo activar la marca',
        variant: 'destructive',
      });
    },
  });

  const filtered = debouncedSearch.trim() !== '' || status !== 'all';
  const openNew = () => setForm({ open: true, brand: null });

  return (
    <>
      <PageHeader
        title="Marcas"
        subtitle="Gestiona las marcas de los productos"
        actions={
          <Button onClick={openNew}>
            <Plus aria-hidden="true" className="h-4 w-4" />
            Agregar marca
          </Button>
        }
      />

      <div className="mb-6 grid grid-cols-2 gap-4 lg:grid-cols-4">
        <StatCard label="Total Marcas" value={stats.data?.total} icon={Tags} tone="bg-brand-100 text-brand-800" />
        <StatCard label="Activas" value={stats.data?.active} icon={CheckCircle2} tone="bg-green-100 text-green-800" />
        <StatCard label="Inactivas" value={stats.data?.inactive} icon={XCircle} tone="bg-red-100 text-red-800" />
        <StatCard label="Total Productos" value={stats.data?.products} icon={Package} tone="bg-amber-100 text-amber-800" />
      </div>

      <div className="mb-6 flex flex-col gap-3 sm:flex-row sm:items-center">
        <div className="relative flex-1">
          <Label htmlFor="brand-search" className="sr-only">
            Buscar marcas
          </Label>
          <Search aria-hidden="true" className="pointer-events-none absolute left-3 top-1/2 h-4 w-4 -translate-y-1/2 text-slate-400" />
          <Input
            id="brand-search"
            type="search"
            placeholder="Buscar marcas..."
            value={search}
            onChange={(event) => setSearch(event.target.value)}
            className="pl-9"
          />
        </div>
        <div role="group" aria-label="Filtrar por estado" className="inline-flex rounded-lg bg-slate-100 p-1">
          {filters.map((filter) => (
            <button
              key={filter.id}
              type="button"
              aria-pressed={status === filter.id}
              onClick={() => setStatus(filter.id)}
              className={cn(
                'flex-1 rounded-md px-4 py-1.5 text-sm font-medium transition-colors focus-visible:outline-2 focus-visible:outline-brand-700 sm:flex-none',
                status === filter.id ? 'bg-white text-slate-900 shadow-sm' : 'text-slate-600 hover:text-slate-900',
              )}
            >
              {filter.label}
            </button>
          ))}
        </div>
      </div>

      {brands.isPending ? (
        <div className="grid gap-4 sm:grid-cols-2 xl:grid-cols-3" aria-busy="true" aria-label="Cargando marcas">
          {[0, 1, 2].map((key) => (
            <Card key={key} className="p-5">
              <Skeleton className="h-5 w-32" />
              <Skeleton className="mt-2 h-4 w-16" />
              <Skeleton className="mt-4 h-12 w-full" />
            </Card>
          ))}
        </div>
      ) : brands.isError ? (
        <Card className="flex flex-col items-center gap-3 border-red-200 bg-red-50 p-8 text-center">
          <p role="alert" className="text-sm text-red-800">
            No se pudieron cargar las marcas
          </p>
          <Button variant="outline" onClick={() => void brands.refetch()}>
            Reintentar
          </Button>
        </Card>
      ) : brands.data.length === 0 ? (
        <Card className="flex flex-col items-center gap-3 p-10 text-center">
          <span aria-hidden="true" className="flex h-12 w-12 items-center justify-center rounded-full bg-slate-100 text-slate-500">
            <Tags className="h-6 w-6" />
          </span>
          {filtered ? (
            <>
              <p className="font-medium text-slate-900">No se encontraron marcas</p>
              <p className="text-sm text-slate-600">Prueba con otra búsqueda o cambia el filtro.</p>
            </>
          ) : (
            <>
              <p className="font-medium text-slate-900">No hay marcas registrados</p>
              <Button onClick={openNew}>
                <Plus aria-hidden="true" className="h-4 w-4" />
                Crear marca
              </Button>
            </>
          )}
        </Card>
      ) : (
        <ul className="grid gap-4 sm:grid-cols-2 xl:grid-cols-3">
          {brands.data.map((brand) => (
            <li key={brand.id}>
              <BrandCard
                brand={brand}
                names={names.data}
                onEdit={() => setForm({ open: true, brand })}
                onToggle={() => toggle.mutate(brand)}
              />
            </li>
          ))}
        </ul>
      )}

      <BrandFormDialog
        open={form.open}
        onOpenChange={(open) => setForm((current) => ({ ...current, open }))}
        brand={form.brand}
      />
    </>
  );
}
