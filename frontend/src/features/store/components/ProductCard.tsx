import { ProductImage } from '@/components/ui/product-image';
import { WhatsAppLink } from '@/components/ui/whatsapp-button';
import { Badge } from '@/components/ui/badge';
import { formatCOP } from '@/lib/format';
import type { Product } from '@/lib/types';
import { messages } from '@/lib/whatsapp';
import { availabilityText, stockTone } from '../availability';
import { ConditionBadge } from './ConditionBadge';

interface ProductCardProps {
  product: Product;
  onOpen: (product: Product) => void;
  /** One of the cards on the first screen: its picture loads first. */
  priority?: boolean;
  /** The shop's "product stock" setting (Configuración): the card shows its availability. */
  showStock?: boolean;
}

/** The card's picture width: two columns on a phone, three from md, four from xl. */
const cardImageSizes = '(min-width: 1280px) 300px, (min-width: 768px) 33vw, 50vw';

/** One product of the grid: name clamped to 2 lines, 'ver más' opens the drawer. */
export function ProductCard({ product, onOpen, priority = false, showStock = true }: ProductCardProps) {
  return (
    <article data-product-card className="group flex w-full flex-col overflow-hidden rounded-xl border border-slate-200 bg-white shadow-sm transition-shadow hover:shadow-md">
      {/* The picture opens the drawer too. Its name is the hidden text, so the
          visible badge stays outside the button (axe: label-content-name-mismatch). */}
      <div className="relative">
        <button
          type="button"
          onClick={() => onOpen(product)}
          className="block aspect-square w-full bg-gradient-to-b from-slate-50 to-slate-100 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-brand-700"
        >
          <ProductImage
            product={product}
            alt=""
            width={320}
            height={320}
            sizes={cardImageSizes}
            priority={priority}
            className="h-full w-full p-4"
          />
          <span className="sr-only">Ver detalles de {product.name}</span>
        </button>
        {product.featured ? (
          <Badge tone="brand" className="pointer-events-none absolute left-3 top-3">
            Destacado
          </Badge>
        ) : null}
      </div>
      <div className="flex flex-1 flex-col gap-2 p-3 sm:p-4">
        {/* On a 360 px phone a card is about 160 px wide: a long condition
            ('Reacondicionado') moves under the brand rather than squeezing it. */}
        <div className="flex flex-wrap items-center justify-between gap-x-2 gap-y-1">
          <span className="min-w-0 max-w-full truncate text-xs font-semibold uppercase tracking-wide text-slate-500">
            {product.brands?.name ?? 'Sin marca'}
          </span>
          <ConditionBadge condition={product.condition} className="whitespace-nowrap text-[11px]" />
        </div>
        <h3 className="line-clamp-2 min-h-[2.5rem] text-sm font-semibold leading-5 text-slate-900" title={product.name}>
          {product.name}
        </h3>
        {product.description ? (
          <p className="text-sm text-slate-600">
            <span className="line-clamp-2">{product.description}</span>
            <button
              type="button"
              onClick={() => onOpen(product)}
              className="mt-0.5 font-medium text-brand-700 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-brand-700"
              aria-label={`ver más sobre ${product.name}`}
            >
              ver más
            </button>
          </p>
        ) : null}
        {showStock ? (
          <Badge tone={stockTone(product.quantity)} className="self-start" data-stock>
            {availabilityText(product.quantity)}
          </Badge>
        ) : null}
        <p className="mt-auto pt-1 text-lg font-bold text-slate-900">{formatCOP(product.price)}</p>
        <WhatsAppLink
          message={messages.availability(product.name)}
          size="sm"
          className="min-h-9 w-full"
        >
          Consultar disponibilidad
        </WhatsAppLink>
      </div>
    </article>
  );
}
