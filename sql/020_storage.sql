-- Storage's metadata, shaped like Supabase's own `storage` schema
-- (supabase/storage migrations/tenant/0002-storage-schema.sql and later ones),
-- so that storage policies written for Supabase load unchanged. The bytes live
-- in the object store under <bucket>/<name>/<version>; a row points at exactly
-- one version.

create table if not exists storage.buckets (
  id text primary key,
  name text not null,
  owner uuid,
  owner_id text,
  public boolean not null default false,
  file_size_limit bigint,
  allowed_mime_types text[],
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create unique index if not exists bname on storage.buckets (name);

-- No foreign key from owner to auth.users: Supabase dropped it, so objects
-- survive the deletion of their uploader.
create table if not exists storage.objects (
  id uuid primary key default gen_random_uuid(),
  bucket_id text constraint objects_bucketid_fkey references storage.buckets (id),
  name text,
  owner uuid,
  owner_id text,
  metadata jsonb,
  user_metadata jsonb,
  path_tokens text[] generated always as (string_to_array(name, '/')) stored,
  version text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  last_accessed_at timestamptz not null default now()
);

create unique index if not exists bucketid_objname on storage.objects (bucket_id, name);
create index if not exists name_prefix_search on storage.objects (name text_pattern_ops);

-- With no policy nobody but service_role reaches a row (Supabase enables RLS on
-- both tables; policies grant access).
alter table storage.objects enable row level security;
alter table storage.buckets enable row level security;

-- The helpers policies call, e.g. `(storage.foldername(name))[1] = auth.uid()::text`.
create or replace function storage.foldername(name text) returns text[]
language plpgsql immutable
as $$
declare
  _parts text[];
begin
  select string_to_array(name, '/') into _parts;
  return _parts[1:array_length(_parts, 1) - 1];
end
$$;

create or replace function storage.filename(name text) returns text
language plpgsql immutable
as $$
declare
  _parts text[];
begin
  select string_to_array(name, '/') into _parts;
  return _parts[array_length(_parts, 1)];
end
$$;

create or replace function storage.extension(name text) returns text
language plpgsql immutable
as $$
declare
  _parts text[];
  _filename text;
begin
  select string_to_array(name, '/') into _parts;
  select _parts[array_length(_parts, 1)] into _filename;
  return reverse(split_part(reverse(_filename), '.', 1));
end
$$;

-- Supabase grants the tables to the API roles and lets row-level security decide.
grant all on storage.buckets, storage.objects to anon, authenticated, service_role;
grant execute on function storage.foldername(text), storage.filename(text), storage.extension(text)
  to anon, authenticated, service_role;
