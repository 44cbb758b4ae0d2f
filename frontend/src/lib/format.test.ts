import { formatCOP } from './format';

// es-CO: '.' groups thousands, ',' separates decimals, a no-break space follows '$'.
const nbsp = '\u00a0';

describe('formatCOP', () => {
  it.each([
    [0, `$${nbsp}0`],
    [999, `$${nbsp}999`],
    [1000, `$${nbsp}1.000`],
    [5899000, `$${nbsp}5.899.000`],
    [1234567.89, `$${nbsp}1.234.568`],
  ])('formats %d with no decimals', (value, text) => {
    expect(formatCOP(value)).toBe(text);
  });

  it('formats two decimals for the product form', () => {
    expect(formatCOP(1234567.891, 2)).toBe(`$${nbsp}1.234.567,89`);
    expect(formatCOP(12.5, 2)).toBe(`$${nbsp}12,50`);
  });
});
