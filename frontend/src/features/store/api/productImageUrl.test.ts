import { describe, expect, it } from 'vitest';
import { supabase } from '@/lib/supabase';
import { productImageUrl } from './productImageUrl';

// The test configuration's gateway is http://gateway.test (src/test/setup.ts).
const uploaded = 'http://gateway.test/storage/v1/object/public/store-products/products/17-a%20b.png';
const render = 'http://gateway.test/storage/v1/render/image/public/store-products/products/17-a%20b.png';

describe('productImageUrl', () => {
  it.each([
    [
      'an uploaded image is asked for at its shown size, and twice that for dense screens',
      uploaded,
      320,
      240,
      {
        src: `${render}?width=320&height=240&resize=contain`,
        srcSet: `${render}?width=320&height=240&resize=contain 1x, ${render}?width=640&height=480&resize=contain 2x`,
      },
    ],
    ['a linked image is left as it is', 'https://cdn.example/phone.png', 320, 320, { src: 'https://cdn.example/phone.png' }],
    ['the logo is left as it is', '/logo.svg', 48, 48, { src: '/logo.svg' }],
    [
      'another bucket is left as it is',
      'http://gateway.test/storage/v1/object/public/avatars/a.png',
      48,
      48,
      { src: 'http://gateway.test/storage/v1/object/public/avatars/a.png' },
    ],
  ])('%s', (_name, url, width, height, expected) => {
    expect(productImageUrl(url, width, height)).toEqual(expected);
  });
});

describe('productImageUrl and supabase-js', () => {
  it.each([
    ['a plain name', 'products/17.png'],
    ['a name with spaces and accents', 'products/17-a b ñ.png'],
  ])('sizes %s as getPublicUrl with a transform does', async (_name, path) => {
    const bucket = (await supabase()).storage.from('store-products');
    const url = bucket.getPublicUrl(path).data.publicUrl;
    const at = (scale: number) =>
      bucket.getPublicUrl(path, { transform: { width: 100 * scale, height: 80 * scale, resize: 'contain' } }).data.publicUrl;
    expect(productImageUrl(url, 100, 80)).toEqual({ src: at(1), srcSet: `${at(1)} 1x, ${at(2)} 2x` });
  });
});
