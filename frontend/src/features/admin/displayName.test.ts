import { displayName, initials } from './displayName';

describe('the display name', () => {
  it('is the full name of the user metadata first', () => {
    expect(displayName({ metadataFullName: 'Ana Gómez', profileFullName: 'Otra', email: 'ana@x.co' })).toBe('Ana Gómez');
  });

  it('falls back to the profile full name', () => {
    expect(displayName({ metadataFullName: '  ', profileFullName: 'Personal de tienda', email: 'staff@x.co' })).toBe(
      'Personal de tienda',
    );
  });

  it('else is the e-mail before the at sign', () => {
    expect(displayName({ profileFullName: null, email: 'staff@tienda.example' })).toBe('staff');
  });

  it("else is 'Usuario'", () => {
    expect(displayName({})).toBe('Usuario');
    expect(displayName({ email: '' })).toBe('Usuario');
    expect(displayName({ metadataFullName: 42, email: null })).toBe('Usuario');
  });

  it('gives up to two initials', () => {
    expect(initials('Ana María Gómez')).toBe('AM');
    expect(initials('staff')).toBe('S');
    expect(initials('')).toBe('U');
  });
});
