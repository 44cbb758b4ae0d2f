-- A public download (`GET /storage/v1/object/public/{bucket}/{name}`) has no
-- caller to judge: its only question is whether the bucket is public and which
-- version of the object to send. Asking it in a request transaction costs four
-- statements (BEGIN, the settings, the select, COMMIT) for one row; this
-- function answers it in one statement that the gateway's login role runs
-- outside any transaction (`Db::as_authenticator`, gateway/src/db/session.rs).
--
-- It is SECURITY DEFINER so that it reads the storage tables past row-level
-- security, as Supabase Storage reads public objects with its service key
-- (supabase/storage `src/http/routes/object/getPublicObject.ts`). What it
-- returns is exactly what a public URL shows anyway: the row is only found when
-- the bucket is public. It is PL/pgSQL, not SQL, because PostgreSQL plans a
-- SQL function's body again on every call, and PL/pgSQL keeps the plan for
-- the session. `exists_here` is false for a public bucket without the object,
-- and no row comes back when there is no such public bucket.
grant usage on schema _gateway to authenticator;

create or replace function _gateway.public_blob(bucket text, object_name text)
returns table (
  object text, version_key text, size text, mimetype text, cache_control text, etag text,
  last_modified text, exists_here boolean
)
language plpgsql stable security definer
set search_path = ''
as $$
begin
  return query
  select o.name, o.version, o.metadata ->> 'size', o.metadata ->> 'mimetype',
         o.metadata ->> 'cacheControl', o.metadata ->> 'eTag', o.metadata ->> 'lastModified',
         o.id is not null
  from storage.buckets b
  left join storage.objects o on o.bucket_id = b.id and o.name = object_name
  where b.id = bucket and b.public;
end
$$;

revoke all on function _gateway.public_blob(text, text) from public;
grant execute on function _gateway.public_blob(text, text) to authenticator;
