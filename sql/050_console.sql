-- The operator console (`/_/`, docs/console.md): its operators, their
-- sessions, the sign-in attempts that rate-limit them, and saved SQL
-- snippets. A private schema: no API role may use it; the console reaches it
-- as the schema owner (`Db::as_schema_owner`), as Studio keeps its own state
-- outside the exposed schemas.
create schema if not exists _console;
revoke all on schema _console from public;

-- Operators are not shop users: an account here signs in to the console
-- only. The password is hashed as users' passwords are (bcrypt).
create table _console.operators (
  id uuid primary key default gen_random_uuid(),
  email text not null,
  password_hash text not null,
  created_at timestamptz not null default now(),
  last_sign_in_at timestamptz
);
create unique index operators_email on _console.operators (lower(email));

-- A session is known by the SHA-256 of its cookie, so that a read of this
-- table signs no one in. The CSRF token is what the console's page sends
-- back in a header on every change.
create table _console.sessions (
  token_hash text primary key,
  operator_id uuid not null references _console.operators (id) on delete cascade,
  csrf_token text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index sessions_expires_at on _console.sessions (expires_at);

-- One row per sign-in attempt, kept for the rate limit's window.
create table _console.sign_in_attempts (
  address text not null,
  at timestamptz not null default now()
);
create index sign_in_attempts_address_at on _console.sign_in_attempts (address, at);

-- The SQL editor's saved snippets, shared by the operators.
create table _console.snippets (
  id uuid primary key default gen_random_uuid(),
  name text not null,
  sql text not null,
  created_by uuid references _console.operators (id) on delete set null,
  created_at timestamptz not null default now()
);
