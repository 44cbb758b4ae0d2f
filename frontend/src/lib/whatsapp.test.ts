import { messages, whatsappLink } from './whatsapp';

/** The message a wa.me link carries, decoded as WhatsApp reads it. */
function textOf(link: string): string | null {
  return new URL(link).searchParams.get('text');
}

describe('whatsappLink', () => {
  it('uses the configured number', () => {
    expect(whatsappLink('Hola')).toBe('https://wa.me/573001234567?text=Hola');
  });

  it('keeps only the digits of the number', () => {
    expect(whatsappLink('Hola', '+57 (300) 123-4567')).toBe('https://wa.me/573001234567?text=Hola');
  });

  it('percent-encodes spaces, accents, signs and punctuation', () => {
    const link = whatsappLink('¿Tienen el iPhone 15 & 16? Precio: $ 3.999.000 #1');
    expect(link).toBe(
      'https://wa.me/573001234567?text=%C2%BFTienen%20el%20iPhone%2015%20%26%2016%3F%20Precio%3A%20%24%203.999.000%20%231',
    );
    expect(textOf(link)).toBe('¿Tienen el iPhone 15 & 16? Precio: $ 3.999.000 #1');
  });
});

describe('the prefilled messages', () => {
  const name = 'iPhone 15 Pro Max 256 GB';
  const price = '$\u00a05.899.000';
  const all: Array<[string, string]> = [
    ['credit', messages.credit],
    ['productCredit', messages.productCredit(name)],
    ['availability', messages.availability(name)],
    ['productInfo', messages.productInfo(name, price)],
    ['contact', messages.contact],
    ['photoBooth', messages.photoBooth],
    ['photoBoothPackage', messages.photoBoothPackage('Clásico')],
  ];

  it.each(all)('%s survives the link unchanged', (_key, message) => {
    const link = whatsappLink(message);
    expect(link).toMatch(/^https:\/\/wa\.me\/573001234567\?text=[A-Za-z0-9%\-_.!~*'()]+$/);
    expect(textOf(link)).toBe(message);
  });

  it('names the product where the spec says so', () => {
    expect(messages.productCredit(name)).toContain(name);
    expect(messages.availability(name)).toContain(name);
    expect(messages.productInfo(name, price)).toContain(name);
    expect(messages.productInfo(name, price)).toContain(price);
    expect(messages.photoBoothPackage('Premium')).toContain('Premium');
  });

  it('speaks of credit on the hero and featured buttons', () => {
    expect(messages.credit).toMatch(/crédito/);
    expect(messages.productCredit(name)).toMatch(/crédito/);
  });

  it('encodes the exact texts', () => {
    expect(whatsappLink(messages.availability('Galaxy A05 64 GB'))).toBe(
      'https://wa.me/573001234567?text=Hola%2C%20quiero%20consultar%20la%20disponibilidad%20de%20Galaxy%20A05%2064%20GB.',
    );
  });
});
