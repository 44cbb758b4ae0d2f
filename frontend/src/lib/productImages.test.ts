import { describe, expect, it } from 'vitest';
import { imageCategories, predefinedImages, type PredefinedImage } from './productImages';
import { existsSync, fileOf, readFileSync, repoFile, statSync, xmlProblems } from '@/test/publicFiles';

const countOf = (category: string) => predefinedImages.filter((image) => image.category === category).length;

describe('predefinedImages', () => {
  it('has the 26 entries of the spec: 15 iPhone, 10 Samsung, 1 Apple Watch', () => {
    expect(predefinedImages).toHaveLength(26);
    expect(countOf('iPhone')).toBe(15);
    expect(countOf('Samsung')).toBe(10);
    expect(countOf('Apple Watch')).toBe(1);
  });

  it('covers the six Samsung models and the Apple Watch Ultra 2', () => {
    const models = new Set(
      predefinedImages.filter((image) => image.category === 'Samsung').map((image) => image.path.split('/')[3]),
    );
    expect([...models].sort()).toEqual([
      'galaxy-a05',
      'galaxy-a05s',
      'galaxy-a06',
      'galaxy-a16',
      'galaxy-a26',
      'galaxy-a35',
    ]);
    const watch = predefinedImages.find((image) => image.category === 'Apple Watch');
    expect(watch?.path).toBe('/assets/apple/apple-watch-ultra-2/titanio.svg');
  });

  it('has unique paths of the form /assets/<brand>/<model>/<colour>.svg', () => {
    const paths = predefinedImages.map((image) => image.path);
    expect(new Set(paths).size).toBe(paths.length);
    for (const path of paths) {
      expect(path).toMatch(/^\/assets\/(apple|samsung)\/[a-z0-9]+(-[a-z0-9]+)*\/[a-z]+(-[a-z]+)*\.svg$/);
    }
  });

  it('has unique Spanish labels naming the model, and a non-empty category', () => {
    const names = predefinedImages.map((image) => image.name);
    expect(new Set(names).size).toBe(names.length);
    for (const image of predefinedImages) {
      expect(image.name.trim()).not.toBe('');
      expect(image.category.trim()).not.toBe('');
      expect(image.name).toMatch(/^(iPhone|Samsung Galaxy|Apple Watch) /);
    }
  });

  it.each(predefinedImages.map((image) => [image.path, image] as const))(
    '%s exists under public/ as a small well-formed SVG with its label as title',
    (_path, image: PredefinedImage) => {
      const file = fileOf(image.path);
      expect(existsSync(file)).toBe(true);
      expect(statSync(file).size).toBeLessThan(6 * 1024);
      const text = readFileSync(file, 'utf8');
      expect(text).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]* viewBox="0 0 600 600"/);
      expect(text).toContain('width="600" height="600"');
      expect(text).toContain('role="img"');
      expect(text).toContain(`<title>${image.name}</title>`);
      expect(text.trimEnd().endsWith('</svg>')).toBe(true);
      expect(text).not.toMatch(/<text|href=|url\((?!#)/);
      expect(xmlProblems(text)).toEqual([]);
      if (typeof DOMParser !== 'undefined') {
        const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
        expect(doc.getElementsByTagName('parsererror')).toHaveLength(0);
        expect(doc.documentElement.nodeName).toBe('svg');
      }
    },
  );
});

describe('imageCategories', () => {
  it('returns the distinct categories of the predefined images, sorted', () => {
    expect(imageCategories()).toEqual(['Apple Watch', 'iPhone', 'Samsung']);
  });

  const entry = (category: string): PredefinedImage => ({ name: category, path: `/assets/x/${category}.svg`, category });

  it.each([
    { input: [], expected: [] },
    { input: ['Samsung'], expected: ['Samsung'] },
    { input: ['Samsung', 'Samsung', 'Samsung'], expected: ['Samsung'] },
    { input: ['Samsung', 'iPhone', 'Apple Watch', 'iPhone'], expected: ['Apple Watch', 'iPhone', 'Samsung'] },
    { input: ['Xiaomi', 'Ñandú', 'Nokia', 'Oppo'], expected: ['Nokia', 'Ñandú', 'Oppo', 'Xiaomi'] },
    { input: ['accesorios', 'Audífonos', 'Apple'], expected: ['accesorios', 'Apple', 'Audífonos'] },
  ])('$input -> $expected', ({ input, expected }) => {
    expect(imageCategories(input.map(entry))).toEqual(expected);
  });

  it('does not change the list it is given', () => {
    const images = [entry('b'), entry('a')];
    imageCategories(images);
    expect(images.map((image) => image.category)).toEqual(['b', 'a']);
  });
});

describe('the demo seed (seed/shop.sql)', () => {
  const seed = readFileSync(repoFile('seed/shop.sql'), 'utf8');
  // One `('name', 'description', price, quantity, 'category', ...)` row per
  // product, as the seed's insert lists them.
  const products = [...seed.matchAll(/^ {2}\('([^']+)', '[^']*', \d+, \d+, '[a-z-]+', .*$/gm)].map((m) => ({
    name: m[1]!,
    image: /'(\/assets\/[^']+)'/.exec(m[0])?.[1] ?? null,
  }));

  it('lists the 50 products of the demo catalogue', () => {
    expect(products).toHaveLength(50);
  });

  it('gives every product a picture, so none falls back to the placeholder', () => {
    expect(products.filter((product) => product.image === null).map((product) => product.name)).toEqual([]);
  });

  it.each(products.map((product) => [product.name, product.image] as const))(
    '%s: its picture %s exists under public/ as a small well-formed SVG',
    (_name, image) => {
      const file = fileOf(image!);
      expect(existsSync(file)).toBe(true);
      expect(statSync(file).size).toBeLessThan(6 * 1024);
      const text = readFileSync(file, 'utf8');
      expect(text).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="600" height="600" viewBox="0 0 600 600" role="img"/);
      expect(text).toMatch(/<title>[^<]+<\/title>/);
      expect(text).not.toMatch(/<text|href=|url\((?!#)/);
      expect(xmlProblems(text)).toEqual([]);
    },
  );

  it('uses the predefined images where the list has the model, and catalogue photos only beside them', () => {
    const known = new Set(predefinedImages.map((image) => image.path));
    const photos = products.map((product) => product.image!).filter((path) => !known.has(path));
    // The catalogue photos keep the list's layout, /assets/<brand>/<model>/<colour>.svg.
    for (const path of photos) expect(path).toMatch(/^\/assets\/[a-z]+\/[a-z0-9]+(-[a-z0-9]+)*\/[a-z0-9]+(-[a-z0-9]+)*\.svg$/);
    expect(products.length - photos.length).toBeGreaterThan(10);
  });
});
