import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useRef, useState, type FormEvent } from 'react';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { FieldError, Input, Label, Textarea } from '@/components/ui/input';
import { toast } from '@/components/ui/toast';
import { useSession } from '@/lib/session';
import type { Brand } from '@/lib/types';
import { createBrand } from './api/createBrand';
import { updateBrand } from './api/updateBrand';
import { brandToForm, toBrandInput, validateBrandForm, type BrandFormErrors, type BrandFormValues } from './brandForm';

interface Props {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** The brand to edit; null creates one. */
  brand: Brand | null;
}

export function BrandFormDialog({ open, onOpenChange, brand }: Props) {
  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      title={brand ? 'Editar marca' : 'Nueva marca'}
      description={brand ? 'Modifica los datos de la marca.' : 'Registra una nueva marca de productos.'}
    >
      <BrandForm brand={brand} onDone={() => onOpenChange(false)} />
    </Dialog>
  );
}

/** Name, description and 'Marca activa'; remounted, so reset, on each opening. */
export function BrandForm({ brand, onDone }: { brand: Brand | null; onDone: () => void }) {
  const id = useId();
  const session = useSession();
  const userId = session.status === 'signed-in' ? session.session.user.id : undefined;
  const queryClient = useQueryClient();
  const [values, setValues] = useState<BrandFormValues>(() => brandToForm(brand));
  const formRef = useRef<HTMLFormElement>(null);
  const [errors, setErrors] = useState<BrandFormErrors>({});

  const mutation = useMutation({
    mutationFn: (current: BrandFormValues) =>
      brand ? updateBrand(brand.id, toBrandInput(current), userId) : createBrand(toBrandInput(current), userId),
    onSuccess: async () => {
      toast({ title: 'Éxito', description: brand ? 'Marca actualizada correctamente' : 'Marca creada correctamente' });
      await queryClient.invalidateQueries({ queryKey: ['brands'] });
      onDone();
    },
    onError: (error) => {
      console.error(error);
      toast({ title: 'Error', description: 'No se pudo guardar la marca', variant: 'destructive' });
    },
  });

  const edit = (field: 'name' | 'description', value: string) => {
    setValues((current) => ({ ...current, [field]: value }));
    setErrors((current) => ({ ...current, [field]: undefined }));
  };

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const found = validateBrandForm(values);
    setErrors(found);
    if (Object.keys(found).length > 0) {
      // Keyboard and screen-reader users land on the first field to fix.
      requestAnimationFrame(() => formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
      return;
    }
    mutation.mutate(values);
  };

  return (
    <form ref={formRef} noValidate onSubmit={onSubmit} className="space-y-4" aria-label={brand ? 'Editar marca' : 'Nueva marca'}>
      <div className="space-y-1.5">
        <Label htmlFor={`${id}-name`}>Nombre</Label>
        <Input
          id={`${id}-name`}
          value={values.name}
          placeholder="Ej. Samsung"
          aria-invalid={Boolean(errors.name)}
          aria-describedby={errors.name ? `${id}-name-error` : undefined}
          onChange={(event) => edit('name', event.target.value)}
        />
        <FieldError id={`${id}-name-error`}>{errors.name}</FieldError>
      </div>
      <div className="space-y-1.5">
        <Label htmlFor={`${id}-description`}>Descripción</Label>
        <Textarea
          id={`${id}-description`}
          value={values.description}
          rows={3}
          placeholder="Productos que ofrece la marca"
          aria-invalid={Boolean(errors.description)}
          aria-describedby={errors.description ? `${id}-description-error` : undefined}
          onChange={(event) => edit('description', event.target.value)}
        />
        <FieldError id={`${id}-description-error`}>{errors.description}</FieldError>
      </div>
      <label className="flex items-center gap-3 text-sm font-medium text-slate-800">
        <input
          type="checkbox"
          checked={values.status}
          onChange={(event) => setValues((current) => ({ ...current, status: event.target.checked }))}
          className="h-4 w-4 rounded border-slate-300 accent-brand-700"
        />
        Marca activa
      </label>
      <div className="flex flex-col-reverse gap-2 border-t border-slate-200 pt-4 sm:flex-row sm:justify-end">
        <Button variant="outline" onClick={onDone} disabled={mutation.isPending}>
          Cancelar
        </Button>
        <Button type="submit" disabled={mutation.isPending}>
          {mutation.isPending ? 'Guardando...' : brand ? 'Actualizar' : 'Crear'}
        </Button>
      </div>
    </form>
  );
}
