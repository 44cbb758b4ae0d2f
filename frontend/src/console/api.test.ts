import { byKey, parsePlan, toCsv } from './api';

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

describe('the table editor and the plan tree', () => {
  test('a row is found by its primary key as PostgREST filters it', () => {
    expect(String(byKey(['id', 'lang'], { id: 7, lang: 'es', body: 'x' }))).toBe('id=eq.7&lang=eq.es');
  });

  test.each([
    [[[JSON.stringify([{ Plan: { 'Node Type': 'Limit', Plans: [] }, 'Execution Time': 0.5 }])]], 'Limit', 0.5],
    [[['not json']], null, undefined],
    [[], null, undefined],
  ])('the plan of %j is %j', (rows, nodeType, executionTime) => {
    const plan = parsePlan({ rows });
    expect(plan?.plan['Node Type'] ?? null).toBe(nodeType);
    expect(plan?.executionTime).toBe(executionTime);
  });
});
