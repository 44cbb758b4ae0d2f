import { categories, categoryLabel, conditionLabel } from './categories';

describe('the fixed categories', () => {
  it('are the twelve of the spec, in its order', () => {
    expect(categories.map((c) => c.id)).toEqual([
      'parlantes', 'vidrios', 'celulares', 'tablet', 'cases', 'cables',
      'cargadores', 'smartwatch', 'audifonos', 'teclado-mouse', 'holder', 'accesorios-varios',
    ]);
  });

  it.each([
    ['tablet', 'Tablets'],
    ['smartwatch', 'Smart Watch'],
    ['audifonos', 'Audífonos'],
    ['teclado-mouse', 'Teclado y Mouse'],
    ['otra', 'otra'],
  ])('label %s as %s', (id, label) => {
    expect(categoryLabel(id)).toBe(label);
  });

  it.each([
    ['nuevo', 'Nuevo'],
    ['reacondicionado', 'Reacondicionado'],
    ['usado', 'Usado'],
  ])('label the condition %s as %s', (id, label) => {
    expect(conditionLabel(id)).toBe(label);
  });
});
