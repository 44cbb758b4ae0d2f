import { Clock, Mail } from 'lucide-react';
import { WhatsAppLink } from '@/components/ui/whatsapp-button';
import { useShopFace } from '@/lib/company';
import { openingHours } from '@/lib/shop';
import { messages } from '@/lib/whatsapp';

/** Chat link, e-mail and opening hours (spec section 2, Store). */
export function StoreFooter() {
  const { name: shopName, email: contactEmail } = useShopFace();
  return (
    <footer className="mt-16 border-t border-slate-200 bg-white">
      <div className="mx-auto grid max-w-7xl gap-8 px-4 py-10 sm:px-6 md:grid-cols-3">
        <div>
          <p className="text-base font-bold text-slate-900">{shopName}</p>
          <p className="mt-2 text-sm text-slate-600">¿Tienes dudas sobre un producto? Escríbenos y te respondemos en minutos.</p>
          <WhatsAppLink message={messages.contact} size="sm" className="mt-4">
            Escríbenos por WhatsApp
          </WhatsAppLink>
        </div>
        <div>
          <h2 className="text-sm font-semibold text-slate-900">Correo</h2>
          {contactEmail ? (
            <a href={`mailto:${contactEmail}`} className="mt-2 inline-flex items-center gap-2 text-sm text-brand-700 hover:underline">
              <Mail aria-hidden="true" className="h-4 w-4" />
              {contactEmail}
            </a>
          ) : null}
        </div>
        <div>
          <h2 className="flex items-center gap-2 text-sm font-semibold text-slate-900">
            <Clock aria-hidden="true" className="h-4 w-4" />
            Horario de atención
          </h2>
          <ul className="mt-2 space-y-1 text-sm text-slate-600">
            {openingHours.map((row) => (
              <li key={row.days}>
                <span className="font-medium text-slate-800">{row.days}:</span> {row.hours}
              </li>
            ))}
          </ul>
        </div>
      </div>
    </footer>
  );
}
