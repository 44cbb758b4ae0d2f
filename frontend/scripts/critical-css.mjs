// The part of the app's stylesheet that a pre-rendered page's HTML uses
// (scripts/prerender.mjs inlines it; the whole stylesheet follows without
// holding the first paint back). A rule is kept when every class its selector
// names is one the HTML uses; rules that name no class (the reset, the theme's
// variables), `@property`, `@keyframes` and `@font-face` are kept whole, and
// the `@layer`, `@media` and `@supports` blocks keep the order of the full
// stylesheet, so the cascade is the same. It reads Tailwind's output as
// Tailwind writes it (https://tailwindcss.com/docs/styling-with-utility-classes):
// one class per utility, escaped as CSS escapes identifiers
// (https://www.w3.org/TR/css-syntax-3/#consume-escaped-code-point).

/** The class names of every `class="..."` in `html`. */
export function classesOf(html) {
  const classes = new Set();
  for (const [, value] of html.matchAll(/\sclass="([^"]*)"/g)) {
    for (const name of value.split(/\s+/)) if (name) classes.add(name.replaceAll('&amp;', '&').replaceAll('&quot;', '"').replaceAll('&#x27;', "'").replaceAll('&lt;', '<').replaceAll('&gt;', '>'));
  }
  return classes;
}

/**
 * The rules of `css` whose classes are all in `classes` (a Set), and of the
 * custom properties (the theme's, Tailwind's `--tw-*` and their `@property`)
 * those that a kept rule reads.
 */
export function criticalCss(css, classes) {
  return withoutUnreadVariables(filterBlock(css, classes));
}

// A custom property's declaration: `{--name:value` or `;--name:value`.
const DECLARATION = /([{;])(--[\w-]+):(?:[^;{}"']|"[^"]*"|'[^']*')*(?=[;}])/g;
const PROPERTY_RULE = /@property (--[\w-]+)\{[^}]*\}/g;

function withoutUnreadVariables(css) {
  // A variable may be read only by another's value: repeat until none goes.
  for (;;) {
    const read = new Set([...css.matchAll(/var\((--[\w-]+)/g)].map((match) => match[1]));
    const next = css
      .replace(DECLARATION, (declaration, before, name) => (read.has(name) ? declaration : before))
      .replace(PROPERTY_RULE, (rule, name) => (read.has(name) ? rule : ''))
      .replace(/\{;+/g, '{')
      .replace(/;;+/g, ';')
      .replace(/;\}/g, '}');
    if (next === css) return css;
    css = next;
  }
}

// At-rules whose blocks hold rules to filter; any other block is kept whole.
const NESTING = /^@(layer|media|supports|container)\b/;

function filterBlock(css, classes) {
  let out = '';
  let i = 0;
  while (i < css.length) {
    const prelude = readUntil(css, i, ['{', ';', '}']);
    const stop = css[prelude.end];
    const head = css.slice(i, prelude.end).trim();
    if (stop === ';' || stop === undefined) {
      if (head) out += `${head};`;
      i = prelude.end + 1;
      continue;
    }
    if (stop === '}') {
      i = prelude.end + 1;
      continue;
    }
    const close = matchingBrace(css, prelude.end);
    const body = css.slice(prelude.end + 1, close);
    i = close + 1;
    const selectorText = head.replace(/^\/\*[\s\S]*?\*\//, '').trim();
    const comment = head.slice(0, head.length - selectorText.length);
    if (selectorText.startsWith('@')) {
      if (NESTING.test(selectorText)) {
        const inner = filterBlock(body, classes);
        // An empty @layer block still declares the layer's place in the order.
        if (inner || selectorText.startsWith('@layer')) out += `${comment}${selectorText}{${inner}}`;
      } else {
        out += `${comment}${selectorText}{${body}}`;
      }
      continue;
    }
    const kept = splitTopLevel(selectorText).filter((selector) => classNames(selector).every((name) => classes.has(name)));
    if (kept.length) out += `${comment}${kept.join(',')}{${body}}`;
  }
  return out;
}

/** The index of the first of `stops` at `from` or after, outside strings, comments and brackets. */
function readUntil(css, from, stops) {
  let depth = 0;
  for (let i = from; i < css.length; i += 1) {
    const c = css[i];
    if (c === '\\') {
      i += 1;
    } else if (c === '"' || c === "'") {
      i = endOfString(css, i);
    } else if (c === '/' && css[i + 1] === '*') {
      i = css.indexOf('*/', i + 2) + 1;
    } else if (c === '(' || c === '[') {
      depth += 1;
    } else if (c === ')' || c === ']') {
      depth -= 1;
    } else if (depth === 0 && stops.includes(c)) {
      return { end: i };
    }
  }
  return { end: css.length };
}

function endOfString(css, start) {
  for (let i = start + 1; i < css.length; i += 1) {
    if (css[i] === '\\') i += 1;
    else if (css[i] === css[start]) return i;
  }
  return css.length;
}

function matchingBrace(css, open) {
  let depth = 0;
  for (let i = open; i < css.length; i += 1) {
    const c = css[i];
    if (c === '\\') i += 1;
    else if (c === '"' || c === "'") i = endOfString(css, i);
    else if (c === '/' && css[i + 1] === '*') i = css.indexOf('*/', i + 2) + 1;
    else if (c === '{') depth += 1;
    else if (c === '}' && --depth === 0) return i;
  }
  throw new Error('the stylesheet has an unclosed block');
}

/** A selector list's selectors, split at the commas outside brackets. */
function splitTopLevel(selectors) {
  const parts = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < selectors.length; i += 1) {
    const c = selectors[i];
    if (c === '\\') i += 1;
    else if (c === '"' || c === "'") i = endOfString(selectors, i);
    else if (c === '(' || c === '[') depth += 1;
    else if (c === ')' || c === ']') depth -= 1;
    else if (c === ',' && depth === 0) {
      parts.push(selectors.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(selectors.slice(start));
  return parts.map((part) => part.trim()).filter(Boolean);
}

/** The class names a selector names, unescaped; attribute selectors are skipped. */
function classNames(selector) {
  const names = [];
  for (let i = 0; i < selector.length; i += 1) {
    const c = selector[i];
    if (c === '\\') {
      i += 1;
    } else if (c === '[') {
      // An attribute selector (a class's own brackets are escaped).
      i = readUntil(selector, i + 1, [']']).end;
    } else if (c === '.') {
      let name = '';
      let j = i + 1;
      while (j < selector.length) {
        const escape = /^\\([0-9a-fA-F]{1,6}) ?|^\\(.)/.exec(selector.slice(j, j + 8));
        if (escape) {
          name += escape[1] ? String.fromCodePoint(parseInt(escape[1], 16)) : escape[2];
          j += escape[0].length;
        } else if (/[\w-]/.test(selector[j]) || selector.charCodeAt(j) > 127) {
          name += selector[j];
          j += 1;
        } else {
          break;
        }
      }
      if (name) names.push(name);
      i = j - 1;
    }
  }
  return names;
}
