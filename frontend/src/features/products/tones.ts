import type { BadgeTone } from '@/components/ui/badge';

/** Stock badge colour (spec section 4): 0 red, below 5 yellow, else green. */
export function stockTone(quantity: number): BadgeTone {
  if (quantity <= 0) return 'red';
  if (quantity < 5) return 'yellow';
  return 'green';
}

/** Condition badge colour (spec section 4): nuevo green, usado yellow, reacondicionado blue. */
export function conditionTone(condition: string): BadgeTone {
  switch (condition) {
    case 'nuevo':
      return 'green';
    case 'usado':
      return 'yellow';
    case 'reacondicionado':
      return 'blue';
    default:
      return 'neutral';
  }
}
