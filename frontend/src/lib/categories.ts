/** The 12 fixed product categories, id and label (spec section 3). */
export const categories = [
  { id: 'parlantes', label: 'Parlantes' },
  { id: 'vidrios', label: 'Vidrios' },
  { id: 'celulares', label: 'Celulares' },
  { id: 'tablet', label: 'Tablets' },
  { id: 'cases', label: 'Cases' },
  { id: 'cables', label: 'Cables' },
  { id: 'cargadores', label: 'Cargadores' },
  { id: 'smartwatch', label: 'Smart Watch' },
  { id: 'audifonos', label: 'Audífonos' },
  { id: 'teclado-mouse', label: 'Teclado y Mouse' },
  { id: 'holder', label: 'Holder' },
  { id: 'accesorios-varios', label: 'Accesorios Varios' },
] as const;

export type CategoryId = (typeof categories)[number]['id'];

/** The label of a category id, or the id itself when it is not a fixed one. */
export function categoryLabel(id: string): string {
  return categories.find((c) => c.id === id)?.label ?? id;
}

/** Product conditions with their labels (spec section 3). */
export const conditions = [
  { id: 'nuevo', label: 'Nuevo' },
  { id: 'reacondicionado', label: 'Reacondicionado' },
  { id: 'usado', label: 'Usado' },
] as const;

export function conditionLabel(id: string): string {
  return conditions.find((c) => c.id === id)?.label ?? id;
}
