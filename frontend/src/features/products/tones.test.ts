import { conditionTone, stockTone } from './tones';

describe('badge colours (spec section 4)', () => {
  it.each([
    [0, 'red'],
    [1, 'yellow'],
    [4, 'yellow'],
    [5, 'green'],
    [40, 'green'],
  ])('stock %i is %s', (quantity, tone) => {
    expect(stockTone(quantity)).toBe(tone);
  });

  it.each([
    ['nuevo', 'green'],
    ['usado', 'yellow'],
    ['reacondicionado', 'blue'],
    ['otro', 'neutral'],
  ])('condition %s is %s', (condition, tone) => {
    expect(conditionTone(condition)).toBe(tone);
  });
});
