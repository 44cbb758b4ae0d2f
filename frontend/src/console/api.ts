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

export interface AuthUser {
  id: string;
  email: string | null;
  phone: string | null;
  created_at: string;
  last_sign_in_at: string | null;
  email_confirmed_at: string | null;
  banned_until: string | null;
  identities: { id: string; provider: string; created_at: string }[] | null;
  factors: { id: string; factor_type: string; status: string; friendly_name: string | null }[] | null;
}

export interface UserPage {
  users: AuthUser[];
  total: number;
  page: number;
  perPage: number;
}

export interface UserSession {
  id: string;
  created_at: string;
  refreshed_at: string | null;
  aal: string | null;
  user_agent: string | null;
  ip: string | null;
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

export async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
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
  users: (search: string, page: number) =>
    call<UserPage>('GET', `/users?${new URLSearchParams({ search, page: String(page), perPage: '20' })}`),
  user: (id: string) => call<{ user: AuthUser; sessions: UserSession[] }>('GET', `/users/${encodeURIComponent(id)}`),
  createUser: (email: string, password: string) =>
    call<AuthUser>('POST', '/users', { email, password, confirm: true }),
  inviteUser: (email: string) => call<AuthUser>('POST', '/users/invite', { email }),
  banUser: (id: string, duration: string) =>
    call<AuthUser>('POST', `/users/${encodeURIComponent(id)}/ban`, { duration }),
  sendRecovery: (id: string) => call<void>('POST', `/users/${encodeURIComponent(id)}/recovery`),
  deleteUser: (id: string) => call<void>('DELETE', `/users/${encodeURIComponent(id)}`),
  revokeSession: (id: string, session: string) =>
    call<void>('DELETE', `/users/${encodeURIComponent(id)}/sessions/${encodeURIComponent(session)}`),
};

/** A result as CSV (RFC 4180): every field quoted when it needs to be, NULL as an empty field. */
export function toCsv(result: Pick<SqlResult, 'columns' | 'rows'>): string {
  const field = (value: string | null) =>
    value === null ? '' : /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
  return [result.columns, ...result.rows].map((row) => row.map(field).join(',')).join('\r\n') + '\r\n';
}
