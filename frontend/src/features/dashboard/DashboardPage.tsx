import { useQuery } from '@tanstack/react-query';
import { Package, PackagePlus, Sparkles, Tags, type LucideIcon } from 'lucide-react';
import { Card } from '@/components/ui/card';
import { Button } from '@/components/ui/button';
import { Skeleton } from '@/components/ui/feedback';
import { PageHeader } from '@/components/ui/page-header';
import { fetchDashboardCounts } from './dashboardCounts';
import { useDocumentTitle } from '@/lib/useDocumentTitle';
import { useRefetchOnChange } from '@/lib/useRefetchOnChange';

interface StatProps {
  title: string;
  value: number;
  hint: string;
  icon: LucideIcon;
  tone: string;
}

function Stat({ title, value, hint, icon: Icon, tone }: StatProps) {
  return (
    <Card className="p-5">
      <div className="flex items-start justify-between gap-3">
        <div>
          <h2 className="text-sm font-medium text-slate-600">{title}</h2>
          <p className="mt-2 text-3xl font-bold tracking-tight text-slate-900" data-testid={`stat-${title}`}>
            {value.toLocaleString('es-CO')}
          </p>
        </div>
        <span aria-hidden="true" className={`flex h-11 w-11 items-center justify-center rounded-lg ${tone}`}>
          <Icon className="h-5 w-5" />
        </span>
      </div>
      <p className="mt-3 text-sm text-slate-500">{hint}</p>
    </Card>
  );
}

export default function DashboardPage() {
  useDocumentTitle('Dashboard | Administración');
  // Products and brands change on the other admin pages: count again on every visit.
  const query = useQuery({
    queryKey: ['dashboard-counts'],
    queryFn: () => fetchDashboardCounts(),
    refetchOnMount: 'always',
  });
  // ...and again while it is open, when another staff member changes them.
  useRefetchOnChange('dashboard', ['products', 'brands'], ['dashboard-counts']);

  return (
    <>
      <PageHeader title="Dashboard" subtitle="Resumen general de tu negocio" />
      {query.isPending ? (
        <div className="grid gap-4 sm:grid-cols-2 xl:grid-cols-4" aria-busy="true" aria-label="Cargando datos del dashboard">
          {[0, 1, 2, 3].map((key) => (
            <Card key={key} className="p-5">
              <Skeleton className="h-4 w-24" />
              <Skeleton className="mt-3 h-8 w-16" />
              <Skeleton className="mt-4 h-4 w-32" />
            </Card>
          ))}
        </div>
      ) : query.isError ? (
        <Card className="flex flex-col items-start gap-3 border-red-200 bg-red-50 p-5">
          <p role="alert" className="text-sm text-red-800">
            Error al cargar datos del dashboard: {query.error.message}
          </p>
          <Button variant="outline" size="sm" onClick={() => void query.refetch()}>
            Reintentar
          </Button>
        </Card>
      ) : (
        <div className="grid gap-4 sm:grid-cols-2 xl:grid-cols-4">
          <Stat
            title="Productos"
            value={query.data.products}
            hint={`${query.data.categories} categorías`}
            icon={Package}
            tone="bg-brand-100 text-brand-800"
          />
          <Stat
            title="Productos Nuevos"
            value={query.data.newProducts}
            hint="Últimos 30 días"
            icon={PackagePlus}
            tone="bg-green-100 text-green-800"
          />
          <Stat
            title="Marcas Activas"
            value={query.data.activeBrands}
            hint="Marcas disponibles"
            icon={Tags}
            tone="bg-violet-100 text-violet-800"
          />
          <Stat
            title="Productos Destacados"
            value={query.data.featuredProducts}
            hint="En promoción"
            icon={Sparkles}
            tone="bg-amber-100 text-amber-800"
          />
        </div>
      )}
    </>
  );
}
