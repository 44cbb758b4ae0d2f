import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { FieldError, Input, Label, Select, Textarea } from '@/components/ui/input';
import { Switch } from '@/components/ui/switch';
import { toast } from '@/components/ui/toast';
import { categories, conditions } from '@/lib/categories';
import { predefinedImages } from '@/lib/productImages';
import { useSession } from '@/lib/session';
import type { Product } from '@/lib/types';
import { createProduct } from './api/createProduct';
import { fetchActiveBrands } from './api/fetchActiveBrands';
import { updateProduct } from './api/updateProduct';
import { uploadProductImage } from './api/uploadProductImage';
import { ImageSourceField } from './ImageSourceField';
import {
  clearError,
  emptyProductForm,
  formatPriceInput,
  messages,
  parsePriceInput,
  productToForm,
  switchImageMode,
  toPayload,
  validateProductForm,
  type ProductFormErrors,
  type ProductFormField,
  type ProductFormValues,
} from './productForm';

const predefinedPaths = predefinedImages.map((image) => image.path);

/** A failed upload: its message goes to the image field, not to a toast. */
class ImageUploadError extends Error {}

interface Props {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** The product to edit; null creates one. */
  product: Product | null;
  /** Preselected category for a new product. */
  category?: string;
}

/** 'Nuevo producto' / 'Editar producto' (spec section 2); the form remounts, so resets, on each opening. */
export function ProductFormDialog({ open, onOpenChange, product, category }: Props) {
  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      title={product ? 'Editar producto' : 'Nuevo producto'}
      description={product ? 'Modifica los datos del producto.' : 'Completa los datos del nuevo producto.'}
      className="max-w-3xl!"
    >
      <ProductForm product={product} category={category} onDone={() => onOpenChange(false)} />
    </Dialog>
  );
}

function Field({
  id,
  label,
  error,
  children,
  optional,
}: {
  id: string;
  label: string;
  error?: string;
  optional?: boolean;
  children: ReactNode;
}) {
  return (
    <div className="space-y-1.5">
      <Label htmlFor={id}>
        {label}
        {optional ? <span className="ml-1 font-normal text-slate-500">(opcional)</span> : null}
      </Label>
      {children}
      <FieldError id={`${id}-error`}>{error}</FieldError>
    </div>
  );
}

function ProductForm({ product, category, onDone }: { product: Product | null; category?: string; onDone: () => void }) {
  const id = useId();
  const session = useSession();
  const userId = session.status === 'signed-in' ? session.session.user.id : undefined;
  const queryClient = useQueryClient();
  const [values, setValues] = useState<ProductFormValues>(() =>
    product ? productToForm(product, predefinedPaths) : { ...emptyProductForm(), category: category ?? '' },
  );
  const formRef = useRef<HTMLFormElement>(null);
  const [errors, setErrors] = useState<ProductFormErrors>({});
  const brands = useQuery({ queryKey: ['products', 'active-brands'], queryFn: fetchActiveBrands });

  const mutation = useMutation({
    mutationFn: async (current: ProductFormValues) => {
      let uploadedUrl: string | undefined;
      if (current.imageMode === 'upload' && current.file) {
        try {
          uploadedUrl = await uploadProductImage(current.file);
        } catch (error) {
          console.error('Error al subir la imagen', error);
          throw new ImageUploadError(messages.imageFile);
        }
      }
      const payload = toPayload(current, uploadedUrl);
      return product ? updateProduct(product.id, payload, userId) : createProduct(payload, userId);
    },
    onSuccess: async () => {
      toast(
        product
          ? { title: 'Producto actualizado', description: 'El producto se ha actualizado correctamente.' }
          : { title: 'Producto creado', description: 'El producto se ha creado correctamente.' },
      );
      await queryClient.invalidateQueries({ queryKey: ['products'] });
      onDone();
    },
    onError: (error) => {
      if (error instanceof ImageUploadError) {
        setErrors((current) => ({ ...current, image: error.message }));
        return;
      }
      console.error(error);
      toast({ title: 'Error', description: 'Hubo un error al guardar el producto.', variant: 'destructive' });
    },
  });

  const update = (field: ProductFormField, patch: Partial<ProductFormValues>) => {
    setValues((current) => ({ ...current, ...patch }));
    setErrors((current) => clearError(current, field));
  };

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const found = validateProductForm(values);
    setErrors(found);
    if (Object.keys(found).length > 0) {
      // Keyboard and screen-reader users land on the first field to fix.
      requestAnimationFrame(() => formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
      return;
    }
    mutation.mutate(values);
  };

  const describedBy = (field: ProductFormField) => (errors[field] ? `${id}-${field}-error` : undefined);
  const saving = mutation.isPending;

  return (
    <form ref={formRef} noValidate onSubmit={onSubmit} className="space-y-4" aria-label={product ? 'Editar producto' : 'Nuevo producto'}>
      <Field id={`${id}-name`} label="Nombre" error={errors.name}>
        <Input
          id={`${id}-name`}
          value={values.name}
          placeholder="Ej. iPhone 15 128 GB"
          aria-invalid={Boolean(errors.name)}
          aria-describedby={describedBy('name')}
          onChange={(event) => update('name', { name: event.target.value })}
        />
      </Field>
      <Field id={`${id}-description`} label="Descripción" error={errors.description}>
        <Textarea
          id={`${id}-description`}
          value={values.description}
          rows={3}
          placeholder="Características principales del producto"
          aria-invalid={Boolean(errors.description)}
          aria-describedby={describedBy('description')}
          onChange={(event) => update('description', { description: event.target.value })}
        />
      </Field>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field id={`${id}-price`} label="Precio" error={errors.price}>
          <Input
            id={`${id}-price`}
            inputMode="numeric"
            autoComplete="off"
            placeholder="$ 0,00"
            value={formatPriceInput(values.price)}
            aria-invalid={Boolean(errors.price)}
            aria-describedby={describedBy('price')}
            onChange={(event) => update('price', { price: parsePriceInput(event.target.value) })}
          />
        </Field>
        <Field id={`${id}-quantity`} label="Cantidad" error={errors.quantity}>
          <Input
            id={`${id}-quantity`}
            type="number"
            inputMode="numeric"
            step={1}
            value={values.quantity}
            aria-invalid={Boolean(errors.quantity)}
            aria-describedby={describedBy('quantity')}
            onChange={(event) => update('quantity', { quantity: event.target.value })}
          />
        </Field>
        <Field id={`${id}-category`} label="Categoría" error={errors.category}>
          <Select
            id={`${id}-category`}
            value={values.category}
            aria-invalid={Boolean(errors.category)}
            aria-describedby={describedBy('category')}
            onChange={(event) => update('category', { category: event.target.value })}
          >
            <option value="">Selecciona una categoría</option>
            {categories.map((item) => (
              <option key={item.id} value={item.id}>
                {item.label}
              </option>
            ))}
          </Select>
        </Field>
        <Field id={`${id}-condition`} label="Condición" error={errors.condition}>
          <Select
            id={`${id}-condition`}
            value={values.condition}
            aria-invalid={Boolean(errors.condition)}
            aria-describedby={describedBy('condition')}
            onChange={(event) => update('condition', { condition: event.target.value })}
          >
            <option value="">Selecciona una condición</option>
            {conditions.map((item) => (
              <option key={item.id} value={item.id}>
                {item.label}
              </option>
            ))}
          </Select>
        </Field>
        <Field id={`${id}-color`} label="Color" optional>
          <Input
            id={`${id}-color`}
            value={values.color}
            placeholder="Ej. Negro"
            onChange={(event) => setValues((current) => ({ ...current, color: event.target.value }))}
          />
        </Field>
        <Field id={`${id}-brand`} label="Marca" optional error={brands.isError ? brands.error.message || 'Error al cargar marcas' : undefined}>
          <Select
            id={`${id}-brand`}
            value={values.brandId}
            disabled={brands.isPending}
            aria-describedby={brands.isError ? `${id}-brand-error` : undefined}
            onChange={(event) => setValues((current) => ({ ...current, brandId: event.target.value }))}
          >
            <option value="">Sin marca</option>
            {(brands.data ?? []).map((brand) => (
              <option key={brand.id} value={String(brand.id)}>
                {brand.name}
              </option>
            ))}
            {/* An inactive brand stays selectable for the product that already has it. */}
            {product?.brands && !(brands.data ?? []).some((brand) => brand.id === product.brands?.id) ? (
              <option value={String(product.brands.id)}>{product.brands.name}</option>
            ) : null}
          </Select>
        </Field>
      </div>
      <div className="flex items-center justify-between gap-4 rounded-md border border-slate-200 px-4 py-3">
        <div>
          <p id={`${id}-featured-label`} className="text-sm font-medium text-slate-800">
            Producto destacado
          </p>
          <p className="text-xs text-slate-500">Se muestra primero en la tienda y en la página de inicio.</p>
        </div>
        <Switch
          checked={values.featured}
          aria-labelledby={`${id}-featured-label`}
          onCheckedChange={(featured) => setValues((current) => ({ ...current, featured }))}
        />
      </div>
      <ImageSourceField
        values={values}
        error={errors.image}
        onModeChange={(mode) => update('image', switchImageMode(values, mode))}
        onChange={(patch) => update('image', patch)}
        onError={(message) => setErrors((current) => ({ ...current, image: message }))}
      />
      <div className="flex flex-col-reverse gap-2 border-t border-slate-200 pt-4 sm:flex-row sm:justify-end">
        <Button variant="outline" onClick={onDone} disabled={saving}>
          Cancelar
        </Button>
        <Button type="submit" disabled={saving}>
          {saving ? 'Guardando...' : product ? 'Actualizar' : 'Crear'}
        </Button>
      </div>
    </form>
  );
}
