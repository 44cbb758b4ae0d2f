import type { AccordionItem } from '@/components/ui/accordion';

/** The landing's copy (spec section 1 claims, section 2 sections). */

export const stats = [
  { value: '+10.000', label: 'clientes satisfechos' },
  { value: '< 5 min', label: 'para aprobar tu crédito' },
  { value: '100 %', label: 'solo con tu cédula' },
] as const;

export const reasons = [
  {
    icon: 'zap',
    title: 'Crédito en 5 minutos',
    text: 'Te aprobamos en menos de 5 minutos, solo con tu cédula y sin consultar centrales de riesgo.',
  },
  {
    icon: 'smartphone',
    title: 'Smartphones nuevos',
    text: 'iPhone, Samsung, Xiaomi, Motorola y más, nuevos y con garantía. Recibimos tu iPhone como parte de pago.',
  },
  {
    icon: 'truck',
    title: 'Envíos a toda Colombia',
    text: 'Compra desde tu casa: enviamos tu equipo a cualquier ciudad o municipio del país.',
  },
] as const;

export const paymentMeans = [
  { icon: 'banknote', title: 'Efectivo', text: 'Paga en nuestra tienda.' },
  { icon: 'card', title: 'Tarjeta débito y crédito', text: 'Todas las franquicias.' },
  { icon: 'landmark', title: 'Transferencias', text: 'Bancarias y billeteras digitales.' },
  { icon: 'calendar', title: 'Crédito a cuotas', text: 'Con dos aliados de financiación por cuotas.' },
  { icon: 'handshake', title: 'Financieras aliadas', text: 'Dos opciones más de crédito para tu celular.' },
  { icon: 'headphones', title: 'Crédito para accesorios', text: 'Financia también tus audífonos, cargadores y más.' },
] as const;

export const testimonials = [
  {
    name: 'Laura Gómez',
    place: 'Villavicencio',
    quote: 'Solo llevé mi cédula y en menos de cinco minutos ya tenía aprobado el crédito. Salí con mi Samsung nuevo ese mismo día.',
  },
  {
    name: 'Andrés Rojas',
    place: 'Bogotá',
    quote: 'Pedí mi iPhone por WhatsApp y me llegó a Bogotá en dos días, bien empacado. Muy buena atención.',
  },
  {
    name: 'Marcela Díaz',
    place: 'Granada, Meta',
    quote: 'Entregué mi iPhone viejo como parte de pago y las cuotas me quedaron muy cómodas. ¡Súper recomendados!',
  },
] as const;

export const faq: readonly AccordionItem[] = [
  {
    question: '¿Dónde están ubicados?',
    answer:
      'Nuestra tienda física está en un municipio del departamento del Meta. Escríbenos por WhatsApp y te compartimos la dirección y cómo llegar.',
  },
  {
    question: '¿Qué documentos necesito para el crédito?',
    answer: 'Solo tu cédula. No pedimos codeudor ni consultamos centrales de riesgo.',
  },
  {
    question: '¿Hacen envíos a otras ciudades?',
    answer: 'Sí, hacemos envíos a toda Colombia. Te confirmamos el costo y el tiempo de entrega según tu ciudad.',
  },
  {
    question: '¿Cuánto tiempo tarda la aprobación?',
    answer: 'Menos de 5 minutos. Apenas validamos tu cédula te confirmamos el cupo y puedes escoger tu equipo.',
  },
  {
    question: '¿Cómo puedo contactarlos?',
    answer: 'Por WhatsApp: toca el botón verde de esta página y un asesor te atiende de inmediato.',
  },
];
