import { useQuery } from '@tanstack/react-query';
import { MAIN_CONTENT_ID } from '@/components/ui/skip-link';
import {
  ArrowRight,
  BadgeCheck,
  Banknote,
  CalendarClock,
  Clock,
  CreditCard,
  Handshake,
  Headphones,
  Landmark,
  Mail,
  MapPin,
  Phone,
  Quote,
  ShieldCheck,
  Smartphone,
  Star,
  Truck,
  Zap,
} from 'lucide-react';
import { useEffect, type ReactNode } from 'react';
import { Link } from 'react-router';
import { buttonClasses } from '@/components/ui/button';
import { FloatingWhatsAppButton, WhatsAppLink } from '@/components/ui/whatsapp-button';
import { useShopFace } from '@/lib/company';
import { AfterHydration, FirstScreenSlot } from '@/lib/prerender';
import { openingHours } from '@/lib/shop';
import { messages } from '@/lib/whatsapp';
import { landingAnchors, paths } from '@/paths';
import { featuredQuery } from './queries';
import { Faq } from './components/Faq';
import { FeaturedModels } from './components/FeaturedModels';
import { LandingFooter } from './components/LandingFooter';
import { LandingHeader } from './components/LandingHeader';
import { paymentMeans, reasons, stats, testimonials } from './content';

const icons = {
  zap: Zap,
  smartphone: Smartphone,
  truck: Truck,
  banknote: Banknote,
  card: CreditCard,
  landmark: Landmark,
  calendar: CalendarClock,
  handshake: Handshake,
  headphones: Headphones,
} as const;

export default function LandingPage() {
  const featured = useQuery(featuredQuery);
  const featuredProducts = featured.data ?? [];

  useEffect(() => {
    document.title = 'Celulares a crédito solo con tu cédula';
  }, []);

  return (
    <div className="flex min-h-dvh flex-col bg-white">
      <LandingHeader />
      <main id={MAIN_CONTENT_ID} tabIndex={-1} className="flex-1">
        <Hero />

        <Section id={landingAnchors.company} eyebrow="Nuestra empresa" title="¿Por qué elegirnos?">
          <p className="mx-auto -mt-4 mb-10 max-w-2xl text-center text-slate-600">
            Somos una tienda de celulares del Meta con más de 10.000 clientes satisfechos. Te damos crédito de forma rápida y
            sencilla, sin papeleos y sin consultar centrales de riesgo.
          </p>
          <ul className="grid gap-6 md:grid-cols-3">
            {reasons.map((reason) => {
              const Icon = icons[reason.icon];
              return (
                <li key={reason.title} className="rounded-2xl border border-slate-200 bg-white p-6 shadow-sm">
                  <span className="inline-flex h-12 w-12 items-center justify-center rounded-xl bg-brand-50 text-brand-700">
                    <Icon aria-hidden="true" className="h-6 w-6" />
                  </span>
                  <h3 className="mt-4 text-lg font-semibold text-slate-900">{reason.title}</h3>
                  <p className="mt-2 text-sm leading-6 text-slate-600">{reason.text}</p>
                </li>
              );
            })}
          </ul>
        </Section>

        <section aria-labelledby="payment-title" className="bg-slate-50 py-16">
          <div className="mx-auto max-w-7xl px-4 sm:px-6">
            <h2 id="payment-title" className="text-center text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl">
              Otros medios de pago
            </h2>
            <p className="mx-auto mt-3 max-w-2xl text-center text-slate-600">
              ¿Prefieres pagar de otra forma? También recibimos tu iPhone como parte de pago.
            </p>
            <ul className="mt-10 grid gap-4 sm:grid-cols-2 md:grid-cols-3">
              {paymentMeans.map((mean) => {
                const Icon = icons[mean.icon];
                return (
                  <li key={mean.title} className="flex items-start gap-3 rounded-xl bg-white p-4 shadow-sm ring-1 ring-slate-200">
                    <Icon aria-hidden="true" className="mt-0.5 h-5 w-5 shrink-0 text-brand-700" />
                    <div>
                      <p className="text-sm font-semibold text-slate-900">{mean.title}</p>
                      <p className="mt-0.5 text-xs text-slate-600 sm:text-sm">{mean.text}</p>
                    </div>
                  </li>
                );
              })}
            </ul>
          </div>
        </section>

        {/* The featured models show only when some loaded (spec section 2); the
            menu's 'Productos' anchor still needs its section, with the store link. */}
        <Section
          id={landingAnchors.products}
          eyebrow="Productos"
          title={
            <FirstScreenSlot name="featured-title">
              {featuredProducts.length > 0 ? 'Modelos destacados' : 'Nuestros productos'}
            </FirstScreenSlot>
          }
        >
          <FirstScreenSlot name="featured-products">
            {featuredProducts.length > 0 ? (
              <FeaturedModels products={featuredProducts} />
            ) : (
              <p className="text-center text-slate-600">Celulares, tablets, relojes y accesorios con garantía y envío a toda Colombia.</p>
            )}
          </FirstScreenSlot>
          <div className="mt-10 flex justify-center">
            <Link to={paths.store} className={buttonClasses('outline', 'lg')}>
              Ver todos los productos
              <ArrowRight aria-hidden="true" className="h-5 w-5" />
            </Link>
          </div>
        </Section>

        <Section id={landingAnchors.testimonials} eyebrow="Testimonios" title="Lo que dicen nuestros clientes" tinted>
          <ul className="grid gap-6 md:grid-cols-3">
            {testimonials.map((t) => (
              <li key={t.name}>
                <figure className="flex h-full flex-col rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200">
                  <Quote aria-hidden="true" className="h-8 w-8 text-brand-100" />
                  <div className="mt-2 flex gap-0.5 text-amber-500" role="img" aria-label="5 de 5 estrellas">
                    {Array.from({ length: 5 }, (_, i) => (
                      <Star key={i} aria-hidden="true" className="h-4 w-4 fill-current" />
                    ))}
                  </div>
                  <blockquote className="mt-3 flex-1 text-slate-700">“{t.quote}”</blockquote>
                  <figcaption className="mt-4 text-sm">
                    <span className="font-semibold text-slate-900">{t.name}</span>
                    <span className="text-slate-500"> · {t.place}</span>
                  </figcaption>
                </figure>
              </li>
            ))}
          </ul>
        </Section>

        <Section id={landingAnchors.faq} eyebrow="Preguntas frecuentes" title="Resolvemos tus dudas">
          <div className="mx-auto max-w-3xl">
            <Faq />
          </div>
        </Section>

        <Contact />
      </main>
      {/* Below the first screen, and made of the deployment's contacts: drawn once hydrated (lib/prerender.tsx). */}
      <AfterHydration>
        <LandingFooter />
      </AfterHydration>
      {/* The hero has its own chat button ('Aplicar Ahora'): the floating one
          comes once the hero is scrolled past, so it never covers its text. */}
      <FloatingWhatsAppButton message={messages.contact} hiddenWhileVisible={heroId} />
    </div>
  );
}

const heroId = 'inicio';

function Hero() {
  return (
    <section id={heroId} className="relative overflow-hidden bg-gradient-to-br from-brand-900 via-brand-800 to-brand-700 text-white">
      <div aria-hidden="true" className="absolute -right-24 -top-24 h-96 w-96 rounded-full bg-white/5" />
      <div aria-hidden="true" className="absolute -bottom-32 -left-16 h-80 w-80 rounded-full bg-white/5" />
      <div className="relative mx-auto grid max-w-7xl items-center gap-12 px-4 py-16 sm:px-6 md:py-24 lg:grid-cols-2">
        <div>
          <p className="inline-flex items-center gap-2 rounded-full bg-white/10 px-3 py-1 text-sm font-medium ring-1 ring-white/20">
            <ShieldCheck aria-hidden="true" className="h-4 w-4" />
            Sin consultar centrales de riesgo
          </p>
          <h1 className="mt-5 text-4xl font-extrabold leading-tight tracking-tight sm:text-5xl">
            Estrena celular hoy, <span className="text-sky-300">solo con tu cédula</span>
          </h1>
          <p className="mt-5 max-w-xl text-lg leading-8 text-blue-100">
            Crédito aprobado en menos de 5 minutos. Smartphones nuevos, envíos a toda Colombia y tu iPhone como parte de pago.
          </p>
          <div className="mt-8 flex flex-col gap-3 sm:flex-row">
            <WhatsAppLink message={messages.credit} size="lg" className="shadow-lg shadow-slate-950/30">
              Aplicar Ahora
            </WhatsAppLink>
            <Link to={paths.store} className={buttonClasses('outline', 'lg', 'border-white/40 bg-white/10 text-white hover:bg-white/20')}>
              Ver tienda
              <ArrowRight aria-hidden="true" className="h-5 w-5" />
            </Link>
          </div>
          <dl className="mt-10 grid max-w-lg grid-cols-3 gap-3 border-t border-white/15 pt-6 sm:gap-4">
            {stats.map((s) => (
              <div key={s.label}>
                <dt className="sr-only">{s.label}</dt>
                {/* One line each: at 360 px three columns hold a 20 px figure, not a 24 px one. */}
                <dd className="whitespace-nowrap text-xl font-bold sm:text-3xl">{s.value}</dd>
                <dd className="mt-1 text-xs text-blue-100 sm:text-sm" aria-hidden="true">
                  {s.label}
                </dd>
              </div>
            ))}
          </dl>
        </div>
        <HeroVisual />
      </div>
    </section>
  );
}

/** A drawn phone showing an approval, so the hero needs no photo download. */
function HeroVisual() {
  return (
    <div aria-hidden="true" className="relative mx-auto hidden w-full max-w-sm lg:block">
      <div className="mx-auto h-[26rem] w-56 rounded-[2.5rem] bg-slate-950 p-3 shadow-2xl ring-1 ring-white/20">
        <div className="flex h-full flex-col rounded-[2rem] bg-gradient-to-b from-sky-100 to-white p-5 text-slate-900">
          <div className="mx-auto h-1.5 w-16 rounded-full bg-slate-300" />
          <p className="mt-8 text-xs font-semibold uppercase tracking-wide text-slate-500">Tu crédito</p>
          <p className="mt-1 text-2xl font-bold">¡Aprobado!</p>
          <div className="mt-6 space-y-3">
            <div className="h-3 w-full rounded bg-slate-200" />
            <div className="h-3 w-4/5 rounded bg-slate-200" />
            <div className="h-3 w-3/5 rounded bg-slate-200" />
          </div>
          <div className="mt-auto rounded-xl bg-whatsapp-700 py-3 text-center text-sm font-semibold text-white">Estrenar ahora</div>
        </div>
      </div>
      <div className="absolute -left-6 top-48 flex items-center gap-3 rounded-xl bg-white px-4 py-3 text-slate-900 shadow-xl">
        <BadgeCheck className="h-8 w-8 text-whatsapp-700" />
        <div>
          <p className="text-sm font-semibold">Aprobado en 5 min</p>
          <p className="text-xs text-slate-500">Solo con tu cédula</p>
        </div>
      </div>
      <div className="absolute -right-4 bottom-24 flex items-center gap-3 rounded-xl bg-white px-4 py-3 text-slate-900 shadow-xl">
        <Truck className="h-7 w-7 text-brand-700" />
        <p className="text-sm font-semibold">Envío a toda Colombia</p>
      </div>
    </div>
  );
}

function Contact() {
  const { email: contactEmail, phone: contactPhone } = useShopFace();
  return (
    <section id={landingAnchors.contact} tabIndex={-1} aria-labelledby="contact-title" className="scroll-mt-16 py-16 focus:outline-none">
      <div className="mx-auto max-w-7xl px-4 sm:px-6">
        <div className="grid gap-10 overflow-hidden rounded-3xl bg-gradient-to-br from-brand-800 to-brand-700 p-8 text-white sm:p-12 lg:grid-cols-2">
          <div>
            <p className="text-sm font-semibold uppercase tracking-wide text-sky-200">Contacto</p>
            <h2 id="contact-title" className="mt-2 text-3xl font-bold tracking-tight">
              ¿Listo para estrenar?
            </h2>
            <p className="mt-4 max-w-md text-blue-100">
              Escríbenos por WhatsApp y un asesor te ayuda a escoger tu equipo y a solicitar tu crédito en minutos.
            </p>
            <WhatsAppLink message={messages.contact} size="lg" className="mt-8">
              Chatea con nosotros
            </WhatsAppLink>
          </div>
          <ul className="space-y-4 self-center text-sm">
            <ContactRow icon={<MapPin className="h-5 w-5" />} title="Ubicación">
              Meta, Colombia
            </ContactRow>
            <AfterHydration>
            {contactPhone ? (
              <ContactRow icon={<Phone className="h-5 w-5" />} title="Teléfono">
                <a href={`tel:${contactPhone.replace(/[^\d+]/g, '')}`} className="hover:underline">
                  {contactPhone}
                </a>
              </ContactRow>
            ) : null}
            {contactEmail ? (
              <ContactRow icon={<Mail className="h-5 w-5" />} title="Correo">
                <a href={`mailto:${contactEmail}`} className="hover:underline">
                  {contactEmail}
                </a>
              </ContactRow>
            ) : null}
            </AfterHydration>
            <ContactRow icon={<Clock className="h-5 w-5" />} title="Horario">
              {openingHours.map((row) => (
                <span key={row.days} className="block">
                  {row.days}: {row.hours}
                </span>
              ))}
            </ContactRow>
          </ul>
        </div>
      </div>
    </section>
  );
}

function ContactRow({ icon, title, children }: { icon: ReactNode; title: string; children: ReactNode }) {
  return (
    <li className="flex items-start gap-4 rounded-xl bg-white/10 p-4 ring-1 ring-white/15">
      <span aria-hidden="true" className="mt-0.5 text-sky-200">
        {icon}
      </span>
      <div>
        <p className="font-semibold">{title}</p>
        <div className="mt-0.5 text-blue-100">{children}</div>
      </div>
    </li>
  );
}

function Section({
  id,
  eyebrow,
  title,
  tinted,
  children,
}: {
  id: string;
  eyebrow: string;
  title: ReactNode;
  tinted?: boolean;
  children: ReactNode;
}) {
  return (
    <section
      id={id}
      tabIndex={-1}
      aria-labelledby={`${id}-title`}
      className={`scroll-mt-16 py-16 focus:outline-none sm:py-20 ${tinted ? 'bg-slate-50' : ''}`}
    >
      <div className="mx-auto max-w-7xl px-4 sm:px-6">
        <p className="text-center text-sm font-semibold uppercase tracking-wide text-brand-700">{eyebrow}</p>
        <h2 id={`${id}-title`} className="mt-2 text-center text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl">
          {title}
        </h2>
        <div className="mt-10">{children}</div>
      </div>
    </section>
  );
}
