import { landingAnchors } from '@/paths';

/** The landing's anchor menu (spec section 2, Header). */
export const landingMenu = [
  { id: landingAnchors.company, label: 'Empresa' },
  { id: landingAnchors.products, label: 'Productos' },
  { id: landingAnchors.testimonials, label: 'Testimonios' },
  { id: landingAnchors.faq, label: 'Preguntas frecuentes' },
  { id: landingAnchors.contact, label: 'Contacto' },
] as const;
