import { Camera, Check } from 'lucide-react';
import { MAIN_CONTENT_ID } from '@/components/ui/skip-link';
import { useEffect } from 'react';
import { FloatingWhatsAppButton, WhatsAppLink } from '@/components/ui/whatsapp-button';
import { cn } from '@/lib/cn';
import { galleryPhotos } from '@/lib/gallery';
import { messages } from '@/lib/whatsapp';
import { packages } from './packages';

/**
 * /other: a static page for a vintage photo-booth event business, unrelated
 * to the shop (spec section 2). Its own sepia look sets it apart.
 */
export default function OtherPage() {
  useEffect(() => {
    document.title = 'Cabina de fotos vintage para eventos';
  }, []);

  return (
    <div className="min-h-dvh bg-[#f7f1e6] text-stone-900">
      <header className="border-b border-stone-300/70">
        <div className="mx-auto flex h-16 max-w-6xl items-center justify-between px-4 sm:px-6">
          <span className="inline-flex items-center gap-2 font-serif text-lg font-bold tracking-wide">
            <Camera aria-hidden="true" className="h-6 w-6 text-amber-800" />
            Foto Cabina Vintage
          </span>
          <WhatsAppLink message={messages.photoBooth} size="sm">
            Cotizar
          </WhatsAppLink>
        </div>
      </header>

      <main id={MAIN_CONTENT_ID} tabIndex={-1}>
        <section className="mx-auto max-w-6xl px-4 py-16 text-center sm:px-6 sm:py-24">
          <p className="text-sm font-semibold uppercase tracking-[0.2em] text-amber-800">Cabina de fotos para eventos</p>
          <h1 className="mx-auto mt-4 max-w-3xl font-serif text-4xl font-bold leading-tight sm:text-5xl">
            Recuerdos con estilo vintage para tu evento
          </h1>
          <p className="mx-auto mt-5 max-w-2xl text-lg text-stone-700">
            Llevamos nuestra cabina de fotos clásica a bodas, quince años, cumpleaños y fiestas de empresa. Tus invitados posan,
            se divierten y se llevan sus fotos impresas al instante.
          </p>
          <WhatsAppLink message={messages.photoBooth} size="lg" className="mt-8">
            Reserva tu fecha por WhatsApp
          </WhatsAppLink>
        </section>

        <section aria-labelledby="packages-title" className="bg-white/60 py-16">
          <div className="mx-auto max-w-6xl px-4 sm:px-6">
            <h2 id="packages-title" className="text-center font-serif text-3xl font-bold">
              Paquetes
            </h2>
            <ul className="mt-10 grid gap-6 md:grid-cols-3">
              {packages.map((pack) => (
                <li
                  key={pack.name}
                  className={cn(
                    'relative flex flex-col rounded-2xl border bg-[#fffaf2] p-6 shadow-sm',
                    pack.highlighted ? 'border-amber-700 ring-2 ring-amber-700' : 'border-stone-300',
                  )}
                >
                  {pack.highlighted ? (
                    <span className="absolute -top-3 left-1/2 -translate-x-1/2 rounded-full bg-amber-800 px-3 py-1 text-xs font-semibold text-white">
                      Más elegido
                    </span>
                  ) : null}
                  <h3 className="font-serif text-2xl font-bold">{pack.name}</h3>
                  <p className="mt-1 text-sm text-stone-600">{pack.tagline}</p>
                  <ul className="mt-6 flex-1 space-y-3 text-sm">
                    {pack.features.map((feature) => (
                      <li key={feature} className="flex items-start gap-2">
                        <Check aria-hidden="true" className="mt-0.5 h-4 w-4 shrink-0 text-amber-800" />
                        {feature}
                      </li>
                    ))}
                  </ul>
                  <WhatsAppLink
                    message={messages.photoBoothPackage(pack.name)}
                    className="mt-8 w-full"
                  >
                    Cotizar {pack.name}
                    <span className="sr-only"> por WhatsApp</span>
                  </WhatsAppLink>
                </li>
              ))}
            </ul>
          </div>
        </section>

        <section aria-labelledby="gallery-title" className="py-16">
          <div className="mx-auto max-w-6xl px-4 sm:px-6">
            <h2 id="gallery-title" className="text-center font-serif text-3xl font-bold">
              Galería
            </h2>
            <ul className="mt-10 grid grid-cols-2 gap-3 sm:gap-4 md:grid-cols-4">
              {galleryPhotos.map((photo) => (
                <li key={photo.src} className="overflow-hidden rounded-lg bg-stone-200 shadow-sm ring-1 ring-stone-300">
                  <img
                    src={photo.src}
                    alt={photo.alt}
                    width={photo.width}
                    height={photo.height}
                    loading="lazy"
                    decoding="async"
                    className="aspect-[4/3] h-auto w-full object-cover"
                  />
                </li>
              ))}
            </ul>
          </div>
        </section>

        <section aria-labelledby="booth-contact-title" className="bg-stone-900 py-16 text-center text-stone-100">
          <div className="mx-auto max-w-2xl px-4 sm:px-6">
            <h2 id="booth-contact-title" className="font-serif text-3xl font-bold">
              ¿Hablamos de tu evento?
            </h2>
            <p className="mt-4 text-stone-300">Cuéntanos la fecha, la ciudad y el número de invitados, y te enviamos una cotización.</p>
            <WhatsAppLink message={messages.photoBooth} size="lg" className="mt-8">
              Escríbenos por WhatsApp
            </WhatsAppLink>
          </div>
        </section>
      </main>
      <footer className="bg-stone-950 py-6 text-center text-xs text-stone-400">© {new Date().getFullYear()} Foto Cabina Vintage</footer>
      <FloatingWhatsAppButton message={messages.photoBooth} />
    </div>
  );
}
