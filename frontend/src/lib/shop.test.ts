import { configuredSocialLinks, defaultProductImage, productImageSrc } from './shop';

describe('productImageSrc', () => {
  it('prefers the uploaded image', () => {
    expect(productImageSrc({ link_image_s3: 'https://s3/x.png', link_image: '/assets/a.svg' })).toBe('https://s3/x.png');
  });
  it('falls back to link_image', () => {
    expect(productImageSrc({ link_image_s3: null, link_image: '/assets/a.svg' })).toBe('/assets/a.svg');
    expect(productImageSrc({ link_image_s3: '', link_image: '/assets/a.svg' })).toBe('/assets/a.svg');
  });
  it('ends at the logo', () => {
    expect(productImageSrc({ link_image_s3: null, link_image: null })).toBe(defaultProductImage);
  });
});

describe('configuredSocialLinks', () => {
  it.each([
    { links: {}, expected: [] },
    { links: { instagram: 'https://www.instagram.com/tienda' }, expected: ['instagram'] },
    {
      links: { tiktok: 'https://www.tiktok.com/@tienda', facebook: 'https://www.facebook.com/tienda', instagram: '' },
      expected: ['facebook', 'tiktok'],
    },
    { links: { facebook: 'javascript:alert(1)', myspace: 'https://myspace.com/x' }, expected: [] },
  ])('shows only the networks configured with a web address: $expected', ({ links, expected }) => {
    expect(configuredSocialLinks(links).map((link) => link.network)).toEqual(expected);
  });
});
