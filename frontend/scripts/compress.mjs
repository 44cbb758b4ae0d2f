// Compresses the build once, so the gateway sends every text file of it
// compressed without spending CPU per request (gateway/src/compress.rs):
// beside each compressible file of dist/ it writes `name.br`
// (brotli, quality 11) and `name.gz` (gzip, level 9), kept only when smaller.
// The gateway picks the variant a request's Accept-Encoding accepts, as nginx's
// gzip_static and brotli_static do. index.html is left out: the gateway adds
// the configuration to it and compresses it per request.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const COMPRESSIBLE = /\.(js|mjs|css|svg|json|txt|xml|webmanifest)$/;
// Below this the saving is a few bytes (the gateway's on-the-fly threshold too).
const MIN_BYTES = 1024;

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== '.vite') yield* files(path);
    else if (entry.isFile()) yield path;
  }
}

let count = 0;
let before = 0;
let after = 0;
for (const path of [...files(dist)]) {
  if (!COMPRESSIBLE.test(path) || statSync(path).size < MIN_BYTES) continue;
  const bytes = readFileSync(path);
  const variants = [
    ['.br', brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } })],
    ['.gz', gzipSync(bytes, { level: 9 })],
  ];
  for (const [suffix, packed] of variants) {
    if (packed.length < bytes.length) writeFileSync(path + suffix, packed);
  }
  count += 1;
  before += bytes.length;
  after += variants[0][1].length;
  if (process.env.VERBOSE) console.log(relative(dist, path));
}
console.log(`compressed ${count} files: ${(before / 1024).toFixed(0)} KB, ${(after / 1024).toFixed(0)} KB as brotli`);
