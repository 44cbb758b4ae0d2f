import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export { existsSync, readFileSync, statSync };

// (Not `new URL(…, import.meta.url)`: Vite rewrites that into a served URL.)
const frontendDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** frontend/public/, which the app serves at `/`. */
export const publicDir = resolve(frontendDir, 'public');

/** The file under frontend/public/ that the app serves at `urlPath`. */
export const fileOf = (urlPath: string) => resolve(publicDir, `.${urlPath}`);

/** A file of the repository, from its root. */
export const repoFile = (path: string) => resolve(frontendDir, '..', path);

/** Tags balance, attributes are quoted, nothing but whitespace outside the root. */
export function xmlProblems(text: string): string[] {
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
