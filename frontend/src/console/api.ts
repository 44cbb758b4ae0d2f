// The console's API (`<console path>/api/`, docs/console.md): same-origin
// fetches with the session cookie, and the CSRF token in a header on every
// change.

export interface ConsoleSession {
  email: string;
  csrfToken: string;
}

export interface Column {
  name: string;
  type: string;
  nullable: boolean;
  default: string | null;
  identity: string | null;
  generated: string | null;
}

export interface Policy {
  name: string;
  command: string;
  permissive: boolean;
  roles: string[];
  using: string | null;
  check: string | null;
}

export interface Table {
  schema: string;
  name: string;
  kind: string;
  rlsEnabled: boolean;
  columns: Column[];
  constraints: { name: string; type: string; definition: string }[];
  foreignKeys: { name: string; definition: string }[];
  indexes: { name: string; definition: string }[];
  policies: Policy[];
}

export interface SqlResult {
  columns: string[];
  rows: (string | null)[][];
  rowCount: number;
  truncated: boolean;
  statements: number;
}

export interface Snippet {
  id: string;
  name: string;
  sql: string;
  createdBy: string | null;
}

export class ConsoleApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly position?: number | null,
  ) {
    super(message);
  }
}

declare global {
  interface Window {
    __CONSOLE__?: { path: string };
  }
}

/** Where the gateway serves the console (`--console-path`). */
export const basePath = window.__CONSOLE__?.path ?? '/_';

let csrfToken = '';

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-console-csrf'] = csrfToken;
  const response = await fetch(`${basePath}/api${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
  });
  if (response.status === 204) return undefined as T;
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) {
    throw new ConsoleApiError(response.status, answer.code ?? 'unknown', answer.message ?? response.statusText, answer.position);
  }
  return answer as T;
}

function remember(session: ConsoleSession): ConsoleSession {
  csrfToken = session.csrfToken;
  return session;
}

export const api = {
  signIn: (email: string, password: string) =>
    call<ConsoleSession>('POST', '/sign-in', { email, password }).then(remember),
  session: () => call<ConsoleSession>('GET', '/session').then(remember),
  signOut: () => call<void>('POST', '/sign-out'),
  tables: () => call<Table[]>('GET', '/tables'),
  sql: (sql: string) => call<SqlResult>('POST', '/sql', { sql }),
  snippets: () => call<Snippet[]>('GET', '/snippets'),
  saveSnippet: (name: string, sql: string) => call<Snippet>('POST', '/snippets', { name, sql }),
  deleteSnippet: (id: string) => call<void>('DELETE', `/snippets/${encodeURIComponent(id)}`),
};

/** A result as CSV (RFC 4180): every field quoted when it needs to be, NULL as an empty field. */
export function toCsv(result: Pick<SqlResult, 'columns' | 'rows'>): string {
  const field = (value: string | null) =>
    value === null ? '' : /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
  return [result.columns, ...result.rows].map((row) => row.map(field).join(',')).join('\r\n') + '\r\n';
}
