import { appConfig } from './config';

/**
 * Chat links: `https://wa.me/<number>?text=<message>` (WhatsApp's click-to-chat,
 * https://faq.whatsapp.com/5913398998672934). The number is configuration.
 */
export function whatsappLink(message: string, number: string = appConfig().whatsappNumber): string {
  return `https://wa.me/${number.replace(/\D/g, '')}?text=${encodeURIComponent(message)}`;
}

/** The prefilled messages the spec describes (sections 2 and 7). */
export const messages = {
  /** Hero 'Aplicar Ahora': interest in credit. */
  credit: 'Hola, quiero aplicar a un crédito con mi cédula. ¿Me pueden dar más información?',
  /** Featured model 'Solicitar Crédito'. */
  productCredit: (name: string) => `Hola, quiero solicitar crédito para el ${name}.`,
  /** Store card 'Consultar disponibilidad'. */
  availability: (name: string) => `Hola, quiero consultar la disponibilidad de ${name}.`,
  /** Product drawer 'Consultar disponibilidad por WhatsApp'. */
  productInfo: (name: string, price: string) =>
    `Hola, me gustaría recibir más información sobre ${name} (${price}).`,
  /** Contact section, footer and the floating button. */
  contact: 'Hola, quiero más información sobre sus productos.',
  /** The photo-booth page (/other). */
  photoBooth: 'Hola, quiero información sobre los paquetes de cabina de fotos vintage.',
  /** A package's 'Cotizar' button on /other. */
  photoBoothPackage: (name: string) => `Hola, quiero cotizar el paquete ${name} de la cabina de fotos vintage.`,
} as const;
