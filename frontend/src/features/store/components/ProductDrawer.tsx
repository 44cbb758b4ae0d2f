import { Badge } from '@/components/ui/badge';
import { Sheet } from '@/components/ui/dialog';
import { ProductImage } from '@/components/ui/product-image';
import { WhatsAppLink } from '@/components/ui/whatsapp-button';
import { categoryLabel } from '@/lib/categories';
import { useShopFace } from '@/lib/company';
import { formatCOP } from '@/lib/format';
import type { Product } from '@/lib/types';
import { messages } from '@/lib/whatsapp';
import { availabilityText, stockTone } from '../availability';
import { ConditionBadge } from './ConditionBadge';

interface ProductDrawerProps {
  product: Product | null;
  onClose: () => void;
}

/**
 * 'Detalles del producto' (spec section 2), sliding in from the right. The
 * Sheet traps focus, closes on Escape and shortens its motion under
 * prefers-reduced-motion.
 */
export function ProductDrawer({ product, onClose }: ProductDrawerProps) {
  return (
    <Sheet
      open={product !== null}
      onOpenChange={(open) => !open && onClose()}
      title="Detalles del producto"
      description={product ? `${product.name}, ${formatCOP(product.price)}` : undefined}
    >
      {product ? <DrawerBody product={product} /> : null}
    </Sheet>
  );
}

function DrawerBody({ product }: { product: Product }) {
  const price = formatCOP(product.price);
  const { showProductStock } = useShopFace();
  return (
    <div className="flex flex-col gap-5">
      <div className="relative overflow-hidden rounded-xl bg-gradient-to-b from-slate-50 to-slate-100">
        <ProductImage product={product} alt={product.name} width={400} height={400} className="mx-auto aspect-square w-full max-w-xs p-6" />
        {product.featured ? (
          <Badge tone="brand" className="absolute left-3 top-3">
            Destacado
          </Badge>
        ) : null}
      </div>

      <div>
        <p className="text-xs font-semibold uppercase tracking-wide text-slate-500">{product.brands?.name ?? 'Sin marca'}</p>
        <h3 className="mt-1 text-xl font-bold text-slate-900">{product.name}</h3>
        <p className="mt-2 text-2xl font-bold text-brand-700">{price}</p>
      </div>

      <dl className="grid grid-cols-2 gap-x-4 gap-y-3 rounded-lg border border-slate-200 p-4 text-sm">
        <div>
          <dt className="text-slate-500">Categoría</dt>
          <dd className="font-medium text-slate-900">{categoryLabel(product.category)}</dd>
        </div>
        <div>
          <dt className="text-slate-500">Condición</dt>
          <dd className="mt-0.5">
            <ConditionBadge condition={product.condition} />
          </dd>
        </div>
        {product.color ? (
          <div>
            <dt className="text-slate-500">Color</dt>
            <dd className="font-medium text-slate-900">{product.color}</dd>
          </div>
        ) : null}
        {/* The whole row on a phone: 'N unidades disponibles' stays on one
            line. Hidden when Configuración turns product stock off. */}
        {showProductStock ? (
        <div className="col-span-2 sm:col-span-1">
          <dt className="text-slate-500">Disponibilidad</dt>
          <dd className="mt-0.5">
            <Badge tone={stockTone(product.quantity)} className="whitespace-nowrap">
              {availabilityText(product.quantity)}
            </Badge>
          </dd>
        </div>
        ) : null}
      </dl>

      {product.description ? (
        <div>
          <h4 className="text-sm font-semibold text-slate-900">Descripción</h4>
          <p className="mt-1 whitespace-pre-line text-sm leading-6 text-slate-700">{product.description}</p>
        </div>
      ) : null}

      <WhatsAppLink message={messages.productInfo(product.name, price)} size="lg" className="w-full">
        Consultar disponibilidad por WhatsApp
      </WhatsAppLink>
    </div>
  );
}
