import { Badge } from '@/components/ui/badge';
import { conditionLabel } from '@/lib/categories';

/** 'Nuevo' in green; any other condition as a secondary badge (spec section 3). */
export function ConditionBadge({ condition, className }: { condition: string; className?: string }) {
  return condition === 'nuevo' ? (
    <Badge tone="green" className={className}>
      Nuevo
    </Badge>
  ) : (
    <Badge tone="neutral" className={className}>
      {conditionLabel(condition)}
    </Badge>
  );
}
