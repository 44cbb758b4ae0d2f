import { isAcceptedImage, MAX_IMAGE_BYTES, uploadFileName } from './imageFile';

describe('the upload name', () => {
  it('is the time, random text and the original extension', () => {
    expect(uploadFileName('Foto del iPhone.PNG', 1_732_370_000_000, 'k3j9x2ab')).toBe('1732370000000-k3j9x2ab.png');
    expect(uploadFileName('imagen.jpeg', 5, 'abc')).toBe('5-abc.jpeg');
    expect(uploadFileName('sin-extension', 5, 'abc')).toBe('5-abc');
  });

  it('differs between two uploads of the same file', () => {
    const first = uploadFileName('a.png');
    const second = uploadFileName('a.png');
    expect(first).toMatch(/^\d{13}-[a-z0-9]+\.png$/);
    expect(first).not.toBe(second);
  });
});

describe('the picked file', () => {
  const file = (type: string, size: number, name = 'foto.png') => ({ name, type, size });

  it.each(['image/jpeg', 'image/jpg', 'image/png', 'image/gif', 'image/webp'])('accepts %s', (type) => {
    expect(isAcceptedImage(file(type, 1000))).toBe(true);
  });

  it.each(['image/svg+xml', 'application/pdf', 'text/plain', 'image/bmp'])('refuses %s', (type) => {
    expect(isAcceptedImage(file(type, 1000))).toBe(false);
  });

  it('accepts 10 MB and refuses a byte more', () => {
    expect(isAcceptedImage(file('image/png', MAX_IMAGE_BYTES))).toBe(true);
    expect(isAcceptedImage(file('image/png', 10_485_761))).toBe(false);
    expect(isAcceptedImage(file('image/png', 0))).toBe(false);
  });

  it('falls back on the extension when the browser gives no type', () => {
    expect(isAcceptedImage(file('', 10, 'a.webp'))).toBe(true);
    expect(isAcceptedImage(file('', 10, 'a.exe'))).toBe(false);
  });
});
