import type { BadgeTone } from '@/components/ui/badge';

/**
 * The drawer's availability line (spec section 2): 'N unidades disponibles' or
 * 'Sin stock'. One unit reads in the singular, as Spanish requires.
 */
export function availabilityText(quantity: number): string {
  if (quantity <= 0) return 'Sin stock';
  if (quantity === 1) return '1 unidad disponible';
  return `${quantity} unidades disponibles`;
}

/** Stock colours (spec section 4): 0 red, below 5 yellow, otherwise green. */
export function stockTone(quantity: number): BadgeTone {
  if (quantity <= 0) return 'red';
  if (quantity < 5) return 'yellow';
  return 'green';
}
