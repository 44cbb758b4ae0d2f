import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { AlertTriangle, Building2, PackageSearch, RefreshCw } from 'lucide-react';
import { useId, useState, type FormEvent } from 'react';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Skeleton } from '@/components/ui/feedback';
import { Input, Label } from '@/components/ui/input';
import { PageHeader } from '@/components/ui/page-header';
import { Switch } from '@/components/ui/switch';
import { toast } from '@/components/ui/toast';
import { useSession } from '@/lib/session';
import type { Company } from '@/lib/types';
import { fetchCompany } from './api/fetchCompany';
import { fetchOwnCompanyId } from './api/fetchOwnCompanyId';
import { updateCompany, type CompanyChanges } from './api/updateCompany';
import { shopCompanyQuery } from '@/lib/company';
import { useDocumentTitle } from '@/lib/useDocumentTitle';

async function fetchOwnCompany(userId: string): Promise<Company> {
  return fetchCompany(await fetchOwnCompanyId(userId));
}

function useSaveCompany(company: Company, userId: string | undefined) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (changes: CompanyChanges) => updateCompany(company.id, userId, changes),
    onSuccess: (saved) => {
      queryClient.setQueryData(['settings', 'company', userId], saved);
      // The public site and the sidebar read the shop's face: show the change.
      void queryClient.invalidateQueries({ queryKey: shopCompanyQuery.queryKey });
      toast({ title: 'Configuración guardada', description: 'Los cambios se guardaron correctamente.' });
    },
    onError: (error) => {
      console.error(error);
      toast({
        title: 'Error al guardar',
        description: 'No se pudieron guardar los cambios. Inténtalo de nuevo.',
        variant: 'destructive',
      });
    },
  });
}

function CardTitle({ icon: Icon, title, subtitle }: { icon: typeof Building2; title: string; subtitle: string }) {
  return (
    <div className="flex items-start gap-3 border-b border-slate-200 px-5 py-4">
      <span aria-hidden="true" className="flex h-10 w-10 shrink-0 items-center justify-center rounded-lg bg-brand-50 text-brand-700">
        <Icon className="h-5 w-5" />
      </span>
      <div>
        <h2 className="font-semibold text-slate-900">{title}</h2>
        <p className="text-sm text-slate-600">{subtitle}</p>
      </div>
    </div>
  );
}

function GeneralCard({ company, userId }: { company: Company; userId: string | undefined }) {
  const id = useId();
  const [values, setValues] = useState({
    name: company.name,
    email: company.email ?? '',
    phone: company.phone ?? '',
  });
  const save = useSaveCompany(company, userId);
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ name: values.name.trim(), email: values.email.trim() || null, phone: values.phone.trim() || null });
  };
  const field = (key: keyof typeof values, label: string, type: string, autoComplete: string) => (
    <div className="space-y-1.5">
      <Label htmlFor={`${id}-${key}`}>{label}</Label>
      <Input
        id={`${id}-${key}`}
        type={type}
        autoComplete={autoComplete}
        value={values[key]}
        onChange={(event) => setValues((current) => ({ ...current, [key]: event.target.value }))}
      />
    </div>
  );
  return (
    <Card>
      <CardTitle icon={Building2} title="General" subtitle="Datos de contacto de la tienda" />
      <form onSubmit={onSubmit} className="space-y-4 p-5" aria-label="General">
        {field('name', 'Nombre de la tienda', 'text', 'organization')}
        {field('email', 'Correo de contacto', 'email', 'email')}
        {field('phone', 'Teléfono', 'tel', 'tel')}
        <div className="flex justify-end">
          <Button type="submit" disabled={save.isPending}>
            {save.isPending ? 'Guardando...' : 'Guardar Cambios'}
          </Button>
        </div>
      </form>
    </Card>
  );
}

const toggles = [
  {
    key: 'display_category_stock',
    label: 'Mostrar stock por categoría',
    hint: 'Muestra cuántos productos hay disponibles en cada categoría.',
  },
  {
    key: 'display_product_stock',
    label: 'Mostrar stock de productos',
    hint: 'Muestra las unidades disponibles de cada producto.',
  },
  {
    key: 'display_users',
    label: 'Mostrar usuarios',
    hint: 'Muestra quién creó o modificó cada registro.',
  },
] as const;

type DisplayFlags = Pick<Company, (typeof toggles)[number]['key']>;

function ProductsCard({ company, userId }: { company: Company; userId: string | undefined }) {
  const id = useId();
  // The toggles stay local until 'Guardar Configuración' (spec section 2).
  const [flags, setFlags] = useState<DisplayFlags>({
    display_category_stock: company.display_category_stock,
    display_product_stock: company.display_product_stock,
    display_users: company.display_users,
  });
  const save = useSaveCompany(company, userId);
  return (
    <Card>
      <CardTitle icon={PackageSearch} title="Productos" subtitle="Qué información se muestra de los productos" />
      <div className="divide-y divide-slate-200 px-5">
        {toggles.map((toggle) => (
          <div key={toggle.key} className="flex items-center justify-between gap-4 py-4">
            <div>
              <p id={`${id}-${toggle.key}`} className="text-sm font-medium text-slate-900">
                {toggle.label}
              </p>
              <p className="text-xs text-slate-500">{toggle.hint}</p>
            </div>
            <Switch
              checked={flags[toggle.key]}
              aria-labelledby={`${id}-${toggle.key}`}
              onCheckedChange={(checked) => setFlags((current) => ({ ...current, [toggle.key]: checked }))}
            />
          </div>
        ))}
      </div>
      <div className="flex justify-end border-t border-slate-200 p-5">
        <Button disabled={save.isPending} onClick={() => save.mutate(flags)}>
          {save.isPending ? 'Guardando...' : 'Guardar Configuración'}
        </Button>
      </div>
    </Card>
  );
}

export default function SettingsPage() {
  useDocumentTitle('Configuración | Administración');
  const session = useSession();
  const userId = session.status === 'signed-in' ? session.session.user.id : undefined;
  const company = useQuery({
    queryKey: ['settings', 'company', userId],
    queryFn: () => fetchOwnCompany(userId!),
    enabled: Boolean(userId),
    // Not retried: a user without a company stays without one.
    retry: false,
  });

  return (
    <>
      <PageHeader title="Configuración" subtitle="Ajustes generales del sistema" />
      {company.isPending ? (
        <div className="grid gap-6 lg:grid-cols-2" aria-busy="true" aria-label="Cargando configuración">
          {[0, 1].map((key) => (
            <Card key={key} className="space-y-4 p-5">
              <Skeleton className="h-5 w-32" />
              <Skeleton className="h-10 w-full" />
              <Skeleton className="h-10 w-full" />
              <Skeleton className="h-10 w-full" />
            </Card>
          ))}
        </div>
      ) : company.isError ? (
        <Card className="flex flex-col items-center gap-3 border-red-200 bg-red-50 p-8 text-center">
          <AlertTriangle aria-hidden="true" className="h-8 w-8 text-red-700" />
          <div role="alert">
            <p className="font-semibold text-red-900">Error al cargar configuración</p>
            <p className="mt-1 text-sm text-red-800">{company.error.message}</p>
          </div>
          <Button variant="outline" onClick={() => void company.refetch()} disabled={company.isFetching}>
            <RefreshCw aria-hidden="true" className="h-4 w-4" />
            Recargar
          </Button>
        </Card>
      ) : (
        <div className="grid items-start gap-6 lg:grid-cols-2">
          <GeneralCard key={`general-${company.data.id}`} company={company.data} userId={userId} />
          <ProductsCard key={`products-${company.data.id}`} company={company.data} userId={userId} />
        </div>
      )}
    </>
  );
}
