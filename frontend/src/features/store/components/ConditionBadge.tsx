import { Badge } from '@/components/ui/badge';
import { conditionLabel } from '@/lib/categories';

/** 'Nuevo' in green; any other condition as a secondary badge (spec section 3). */
export function ConditionBadge({ condition }: { condition: string }) {
  return condition === 'nuevo' ? (
    <Badge tone="green">Nuevo</Badge>
  ) : (
    <Badge tone="neutral">{conditionLabel(condition)}</Badge>
  );
}
