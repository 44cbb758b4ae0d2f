import { describe, expect, it } from 'vitest';
import { existsSync, fileOf, readFileSync, statSync, xmlProblems } from '@/test/publicFiles';
import { galleryPhotos, type GalleryPhoto } from './gallery';

describe('galleryPhotos', () => {
  it('has the 8 photos of the /other page, in order, with distinct Spanish alt texts', () => {
    expect(galleryPhotos.map((photo) => photo.src)).toEqual(
      [1, 2, 3, 4, 5, 6, 7, 8].map((n) => `/gallery/foto-${n}.svg`),
    );
    const alts = galleryPhotos.map((photo) => photo.alt.trim());
    expect(alts.every((alt) => alt.length > 10)).toBe(true);
    expect(new Set(alts).size).toBe(8);
  });

  it.each(galleryPhotos.map((photo) => [photo.src, photo] as const))(
    '%s exists as a small 4:3 SVG whose title is its alt text',
    (_src, photo: GalleryPhoto) => {
      expect([photo.width, photo.height]).toEqual([800, 600]);
      const file = fileOf(photo.src);
      expect(existsSync(file)).toBe(true);
      expect(statSync(file).size).toBeLessThan(8 * 1024);
      const text = readFileSync(file, 'utf8');
      expect(text).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="800" height="600" viewBox="0 0 800 600"/);
      expect(text).toContain('role="img"');
      expect(text).toContain(`<title>${photo.alt}</title>`);
      expect(text.trimEnd().endsWith('</svg>')).toBe(true);
      // Only references inside the file itself (gradients, filters, <use href="#…">).
      expect(text).not.toMatch(/<text|href="(?!#)|url\((?!#)/);
      expect(xmlProblems(text)).toEqual([]);
      if (typeof DOMParser !== 'undefined') {
        const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
        expect(doc.getElementsByTagName('parsererror')).toHaveLength(0);
        expect(doc.documentElement.nodeName).toBe('svg');
      }
    },
  );
});
