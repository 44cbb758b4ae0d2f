import { describe, expect, it } from 'vitest';
import { galleryPhotos, type GalleryPhoto } from './gallery';

// The files are read with node:fs. The app's tsconfig has no Node types (they
// would leak into the browser code), so the Node modules are imported untyped
// and given the few signatures used here.
interface NodeFs {
  existsSync(path: string): boolean;
  readFileSync(path: string, encoding: 'utf8'): string;
  statSync(path: string): { size: number };
}
interface NodePath {
  dirname(path: string): string;
  resolve(...paths: string[]): string;
}
interface NodeUrl {
  fileURLToPath(url: string): string;
}
const nodeModule = (name: string): Promise<unknown> => import(/* @vite-ignore */ name);
const { existsSync, readFileSync, statSync } = (await nodeModule('node:fs')) as NodeFs;
const { dirname, resolve } = (await nodeModule('node:path')) as NodePath;
const { fileURLToPath } = (await nodeModule('node:url')) as NodeUrl;

// (Not `new URL(…, import.meta.url)`: Vite rewrites that into a served URL.)
const publicDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'public');
/** The file under frontend/public/ that the app serves at `urlPath`. */
const fileOf = (urlPath: string) => resolve(publicDir, `.${urlPath}`);

/** Tags balance, attributes are quoted, nothing but whitespace outside the root. */
function xmlProblems(text: string): string[] {
  const problems: string[] = [];
  const stack: string[] = [];
  const tag = /<(\/?)([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>|<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<[^>]*>?/g;
  let last = 0;
  for (let m = tag.exec(text); m; m = tag.exec(text)) {
    if (stack.length === 0 && text.slice(last, m.index).trim() !== '') problems.push(`text outside the root at ${last}`);
    last = tag.lastIndex;
    if (m[0].startsWith('<!--') || m[0].startsWith('<?')) continue;
    const [, close, name, , selfClosing] = m;
    if (name === undefined) problems.push(`malformed tag at ${m.index}: ${m[0].slice(0, 40)}`);
    else if (close) {
      if (stack.pop() !== name) problems.push(`unexpected </${name}> at ${m.index}`);
    } else if (!selfClosing) stack.push(name);
  }
  if (text.slice(last).trim() !== '') problems.push('text after the root');
  if (stack.length > 0) problems.push(`unclosed <${stack.join('>, <')}>`);
  return problems;
}

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
