import type { Brand } from '@/lib/types';

export interface BrandFormValues {
  name: string;
  description: string;
  status: boolean;
}

/** The columns a brand form writes. */
export type BrandInput = BrandFormValues;

export type BrandFormErrors = Partial<Record<'name' | 'description', string>>;

/** A new brand is active (spec section 4). */
export function brandToForm(brand: Brand | null): BrandFormValues {
  return brand
    ? { name: brand.name, description: brand.description ?? '', status: brand.status }
    : { name: '', description: '', status: true };
}

/** Spec section 5: name and description required, blank counts as empty. */
export function validateBrandForm(values: BrandFormValues): BrandFormErrors {
  const errors: BrandFormErrors = {};
  if (!values.name.trim()) errors.name = 'El nombre es requerido';
  if (!values.description.trim()) errors.description = 'La descripción es requerida';
  return errors;
}

export function toBrandInput(values: BrandFormValues): BrandInput {
  return { name: values.name.trim(), description: values.description.trim(), status: values.status };
}
