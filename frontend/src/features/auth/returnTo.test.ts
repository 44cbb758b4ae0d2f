import { returnPath } from './returnTo';

describe('returnPath', () => {
  it('defaults to /admin', () => {
    expect(returnPath(null)).toBe('/admin');
    expect(returnPath(undefined)).toBe('/admin');
    expect(returnPath({})).toBe('/admin');
  });

  it('returns to the remembered admin page with its search and hash', () => {
    expect(returnPath({ from: { pathname: '/admin/products', search: '?q=1', hash: '#x' } })).toBe('/admin/products?q=1#x');
    expect(returnPath({ from: { pathname: '/admin' } })).toBe('/admin');
  });

  it('refuses pages outside the admin area', () => {
    expect(returnPath({ from: { pathname: '/auth' } })).toBe('/admin');
    expect(returnPath({ from: { pathname: '/administrador' } })).toBe('/admin');
    expect(returnPath({ from: { pathname: '//evil.example/admin' } })).toBe('/admin');
  });
});
