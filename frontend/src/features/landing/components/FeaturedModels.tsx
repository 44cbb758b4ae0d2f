import { Badge } from '@/components/ui/badge';
import { ProductImage } from '@/components/ui/product-image';
import { WhatsAppLink } from '@/components/ui/whatsapp-button';
import { formatCOP } from '@/lib/format';
import type { Product } from '@/lib/types';
import { messages } from '@/lib/whatsapp';

/** Up to 3 featured models, each with 'Solicitar Crédito' (spec section 2). */
export function FeaturedModels({ products }: { products: readonly Product[] }) {
  return (
    <ul className="grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
      {products.map((product) => (
        <li key={product.id}>
          <article data-product-card className="flex h-full flex-col overflow-hidden rounded-2xl border border-slate-200 bg-white shadow-sm">
            <div className="relative bg-gradient-to-b from-brand-50 to-white">
              <ProductImage
                product={product}
                alt={product.name}
                width={360}
                height={280}
                sizes="(min-width: 1024px) 400px, (min-width: 640px) 50vw, 100vw"
                priority
                className="mx-auto h-56 w-full p-6"
              />
              <Badge tone="brand" className="absolute left-4 top-4">
                Destacado
              </Badge>
            </div>
            <div className="flex flex-1 flex-col gap-2 p-5">
              <p className="text-xs font-semibold uppercase tracking-wide text-slate-500">{product.brands?.name ?? 'Sin marca'}</p>
              <h3 className="text-lg font-semibold text-slate-900">{product.name}</h3>
              {product.description ? <p className="line-clamp-2 text-sm text-slate-600">{product.description}</p> : null}
              <p className="mt-auto pt-2 text-2xl font-bold text-slate-900">{formatCOP(product.price)}</p>
              <WhatsAppLink message={messages.productCredit(product.name)} className="mt-2 w-full">
                Solicitar Crédito
              </WhatsAppLink>
            </div>
          </article>
        </li>
      ))}
    </ul>
  );
}
