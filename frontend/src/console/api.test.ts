import { toCsv } from './api';

describe('a result as CSV', () => {
  test.each([
    [{ columns: ['a', 'b'], rows: [['1', 'x']] }, 'a,b\r\n1,x\r\n'],
    [{ columns: ['text'], rows: [['say "hi", twice']] }, 'text\r\n"say ""hi"", twice"\r\n'],
    [{ columns: ['line'], rows: [['one\ntwo']] }, 'line\r\n"one\ntwo"\r\n'],
    [{ columns: ['n', 'm'], rows: [[null, '']] }, 'n,m\r\n,\r\n'],
  ])('%j is %j', (result, csv) => {
    expect(toCsv(result)).toBe(csv);
  });
});
