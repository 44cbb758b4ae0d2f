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

// The table editor (TableEditor.tsx): rows through `/rest/v1`'s planner, and
// schema changes previewed as SQL before they are applied.

export type ColumnDefault = { value: string } | { expression: string } | { none: true };

export interface NewColumn {
  name: string;
  type: string;
  nullable?: boolean;
  primaryKey?: boolean;
  default?: ColumnDefault;
}

export type PolicyTemplate =
  | { template: 'publicRead' }
  | { template: 'authenticatedRead' }
  | { template: 'owner'; column: string };

type On = { schema: string; table: string };
export type SchemaChange =
  | (On & { change: 'createTable'; columns: NewColumn[] })
  | (On & { change: 'addColumn'; column: NewColumn })
  | (On & { change: 'dropColumn'; column: string })
  | (On & { change: 'renameColumn'; column: string; to: string })
  | (On & { change: 'alterColumn'; column: string; type?: string; default?: ColumnDefault; nullable?: boolean })
  | (On & { change: 'enableRls' })
  | (On & { change: 'createPolicy'; name: string; policy: PolicyTemplate });

export type Row = Record<string, unknown>;

async function rowCall(method: string, schema: string, table: string, query: URLSearchParams, body?: unknown, prefer?: string) {
  const headers: Record<string, string> = { 'x-console-csrf': csrfToken };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (prefer) headers.prefer = prefer;
  const response = await fetch(
    `${basePath}/api/tables/${encodeURIComponent(schema)}/${encodeURIComponent(table)}/rows?${query}`,
    { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin' },
  );
  const text = await response.text();
  const answer = text ? JSON.parse(text) : null;
  if (!response.ok) {
    throw new ConsoleApiError(response.status, answer?.code ?? 'unknown', answer?.message ?? response.statusText);
  }
  return { rows: (answer ?? []) as Row[], range: response.headers.get('content-range') };
}

/** The filter of one row by its primary key, as PostgREST reads it (`id=eq.1`). */
export function byKey(key: string[], row: Row): URLSearchParams {
  return new URLSearchParams(key.map((column) => [column, `eq.${String(row[column])}`]));
}

export const tableApi = {
  /** A page of rows: PostgREST's own query (`select`, `order`, filters) plus `limit` and `offset`; the total from `count=exact`. */
  rows: async (schema: string, table: string, query: URLSearchParams) => {
    const { rows, range } = await rowCall('GET', schema, table, query, undefined, 'count=exact');
    const total = Number(range?.split('/')[1] ?? rows.length);
    return { rows, total: Number.isNaN(total) ? rows.length : total };
  },
  insert: (schema: string, table: string, row: Row) =>
    rowCall('POST', schema, table, new URLSearchParams(), row, 'return=representation'),
  update: (schema: string, table: string, key: URLSearchParams, changes: Row) =>
    rowCall('PATCH', schema, table, key, changes, 'return=representation'),
  remove: (schema: string, table: string, key: URLSearchParams) => rowCall('DELETE', schema, table, key),
  preview: (changes: SchemaChange[]) => call<{ sql: string }>('POST', '/tables/preview', { changes }),
  apply: (changes: SchemaChange[], sql: string) => call<{ sql: string }>('POST', '/tables/apply', { changes, sql }),
};

/** One node of `explain (format json)`'s plan, with what the tree shows of it. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Plan Rows'?: number;
  'Actual Total Time'?: number;
  'Total Cost'?: number;
  Plans?: PlanNode[];
}

/** The plan of an `explain (analyze, format json)` answer's one cell. */
export function parsePlan(result: Pick<SqlResult, 'rows'>): { plan: PlanNode; executionTime?: number } | null {
  try {
    const [top] = JSON.parse(result.rows[0]?.[0] ?? '');
    return top?.Plan ? { plan: top.Plan, executionTime: top['Execution Time'] } : null;
  } catch {
    return null;
  }
}

// Keys and signing keys (Keys.tsx).

export interface ApiKey {
  name: string;
  kind: 'publishable' | 'secret';
  start: string;
  createdAt: string;
  revokedAt: string | null;
}

export interface SigningKey {
  kid: string;
  algorithm: string;
  status: 'standby' | 'current' | 'previous' | 'revoked';
  createdAt: string;
}

export const keysApi = {
  list: () => call<{ apiKeys: ApiKey[]; signingKeys: SigningKey[] }>('GET', '/keys'),
  create: (name: string, kind: ApiKey['kind']) =>
    call<{ name: string; kind: string; key: string }>('POST', '/keys', { name, kind }),
  revoke: (name: string, kind: ApiKey['kind']) => call<void>('POST', '/keys/revoke', { name, kind }),
  createStandby: (algorithm: string) => call<{ kid: string }>('POST', '/signing-keys', { algorithm }),
  rotate: () => call<{ current: string; previous: string | null }>('POST', '/signing-keys/rotate'),
  revokeSigningKey: (kid: string) => call<void>('DELETE', `/signing-keys/${encodeURIComponent(kid)}`),
};

// Observe (Observe.tsx).

export interface LogEntry {
  at: number;
  method: string;
  path: string;
  service: string;
  status: number;
  durationMs: number;
  requestId: string;
}

export interface MetricsBucket {
  at: number;
  requests: number;
  errors: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
}

export interface Metrics {
  windowSeconds: number;
  bucketSeconds: number;
  buckets: MetricsBucket[];
  total: MetricsBucket;
  pool: { max: number; open: number; inUse: number; waiting: number };
  realtime: {
    sockets: number;
    channels: number;
    topics: { topic: string; private: boolean; channels: number; presences: number }[];
    changesLagSeconds: number | null;
  };
}

export const observeApi = {
  logs: (filter: { service: string; status: string; requestId: string }) =>
    call<{ entries: LogEntry[]; capacity: number }>('GET', `/logs?${new URLSearchParams(filter)}`),
  metrics: () => call<Metrics>('GET', '/metrics'),
};

// Storage (Storage.tsx): `/storage/v1` as the service role, through the console.

export interface Bucket {
  id: string;
  name: string;
  public: boolean;
  file_size_limit: number | null;
  allowed_mime_types: string[] | null;
  created_at: string;
}

export interface StorageEntry {
  name: string;
  id: string | null;
  updated_at: string | null;
  metadata: { size?: number; mimetype?: string } | null;
}

/** A key as a URL path: each segment percent-encoded. */
export const keyPath = (bucket: string, key: string) =>
  [bucket, ...key.split('/')].map(encodeURIComponent).join('/');

/** Where the console reaches an object through the storage service. */
export const storageUrl = (path: string) => `${basePath}/api/storage${path}`;

export const storageApi = {
  buckets: () => call<Bucket[]>('GET', '/storage/bucket'),
  createBucket: (bucket: { name: string; public: boolean; file_size_limit: number | null; allowed_mime_types: string[] | null }) =>
    call<{ name: string }>('POST', '/storage/bucket', bucket),
  updateBucket: (id: string, bucket: { public: boolean; file_size_limit: number | null; allowed_mime_types: string[] | null }) =>
    call<unknown>('PUT', `/storage/bucket/${encodeURIComponent(id)}`, bucket),
  deleteBucket: (id: string) => call<unknown>('DELETE', `/storage/bucket/${encodeURIComponent(id)}`),
  list: (bucket: string, prefix: string) =>
    call<StorageEntry[]>('POST', `/storage/object/list/${encodeURIComponent(bucket)}`, {
      prefix,
      limit: 1000,
      sortBy: { column: 'name', order: 'asc' },
    }),
  upload: (bucket: string, key: string, file: File, onProgress: (sent: number) => void = () => {}) =>
    resumableUpload(bucket, key, file, onProgress),
  move: (bucket: string, from: string, to: string) =>
    call<unknown>('POST', '/storage/object/move', { bucketId: bucket, sourceKey: from, destinationKey: to }),
  remove: (bucket: string, keys: string[]) =>
    call<unknown>('DELETE', `/storage/object/${encodeURIComponent(bucket)}`, { prefixes: keys }),
  sign: (bucket: string, key: string, expiresIn: number) =>
    call<{ signedURL: string }>('POST', `/storage/object/sign/${keyPath(bucket, key)}`, { expiresIn }),
};

/** A result as CSV (RFC 4180): every field quoted when it needs to be, NULL as an empty field. */
export function toCsv(result: Pick<SqlResult, 'columns' | 'rows'>): string {
  const field = (value: string | null) =>
    value === null ? '' : /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
  return [result.columns, ...result.rows].map((row) => row.map(field).join(',')).join('\r\n') + '\r\n';
}

/** Bytes per request of a resumable upload: Supabase's clients send 6 MB chunks. */
export const UPLOAD_CHUNK = 6 * 1024 * 1024;
/** Tries of one chunk before the upload gives up (each resumes where the server stands). */
const CHUNK_TRIES = 3;

/**
 * A file uploaded with TUS (`/storage/v1/upload/resumable`, as Studio and
 * supabase-js's resumable uploads do): made with its length and metadata,
 * then sent in chunks; a chunk that fails is sent again from the offset the
 * server reports (`HEAD`), so a dropped connection costs one chunk, not the
 * file (https://tus.io/protocols/resumable-upload).
 */
async function resumableUpload(bucket: string, key: string, file: File, onProgress: (sent: number) => void) {
  const tus = { 'tus-resumable': '1.0.0', 'x-console-csrf': csrfToken };
  const metadata = { bucketName: bucket, objectName: key, contentType: file.type || 'application/octet-stream', cacheControl: '3600' };
  const encoded = Object.entries(metadata)
    .map(([name, value]) => `${name} ${btoa(String.fromCodePoint(...new TextEncoder().encode(value)))}`)
    .join(',');
  const created = await fetch(storageUrl('/upload/resumable'), {
    method: 'POST',
    headers: { ...tus, 'upload-length': String(file.size), 'upload-metadata': encoded },
    credentials: 'same-origin',
  });
  if (created.status !== 201) throw await tusError(created);
  // The storage service names the upload by the last segment of its Location.
  const id = created.headers.get('location')?.split('/').pop();
  if (!id) throw new ConsoleApiError(502, 'no_location', 'the upload has no Location');
  const url = storageUrl(`/upload/resumable/${id}`);
  let offset = 0;
  let tries = 0;
  while (offset < file.size) {
    try {
      const sent = await fetch(url, {
        method: 'PATCH',
        headers: { ...tus, 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' },
        body: file.slice(offset, offset + UPLOAD_CHUNK),
        credentials: 'same-origin',
      });
      if (sent.status !== 204) throw await tusError(sent);
      offset = Number(sent.headers.get('upload-offset'));
      tries = 0;
      onProgress(offset);
    } catch (error) {
      tries += 1;
      if (tries >= CHUNK_TRIES) throw error;
      const standing = await fetch(url, { method: 'HEAD', headers: tus, credentials: 'same-origin' });
      if (!standing.ok) throw await tusError(standing);
      offset = Number(standing.headers.get('upload-offset'));
    }
  }
  if (file.size === 0) onProgress(0);
}

/** TUS answers errors as their message in plain text, with their status. */
async function tusError(response: Response): Promise<ConsoleApiError> {
  const text = await response.text().catch(() => '');
  return new ConsoleApiError(response.status, 'upload_failed', text.trim() || response.statusText);
}
