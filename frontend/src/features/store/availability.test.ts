import { availabilityText, stockTone } from './availability';

describe('the drawer availability', () => {
  it.each([
    [0, 'Sin stock'],
    [-1, 'Sin stock'],
    [1, '1 unidad disponible'],
    [2, '2 unidades disponibles'],
    [14, '14 unidades disponibles'],
  ])('%d reads %s', (quantity, text) => {
    expect(availabilityText(quantity)).toBe(text);
  });

  it.each([
    [0, 'red'],
    [1, 'yellow'],
    [4, 'yellow'],
    [5, 'green'],
    [40, 'green'],
  ] as const)('%d units is %s', (quantity, tone) => {
    expect(stockTone(quantity)).toBe(tone);
  });
});
