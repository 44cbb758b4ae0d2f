-- A public download (`GET /storage/v1/object/public/{bucket}/{name}`, and
-- `/object/info/public/...`) has no
-- caller to judge: its only questions are whether the bucket is public and
-- which version of the object to send. Asking them in a request transaction
-- costs four statements (BEGIN, the settings, the select, COMMIT) for one row;
-- these two views answer them in one statement that the gateway's login role
-- runs outside any transaction (`Db::as_authenticator`,
-- gateway/src/db/session.rs).
--
-- A view reads its tables with its owner's rights, past row-level security
-- (the owner owns the storage tables), as Supabase Storage reads public
-- objects with its service key (supabase/storage
-- `src/http/routes/object/getPublicObject.ts`). They show exactly what public
-- URLs show anyway: public buckets, and the objects in them. Views rather than
-- a SECURITY DEFINER function, because the planner inlines a view into the
-- prepared statement, while a function call costs PostgreSQL about twice the
-- CPU of the plain select (measured with pgbench: 57k against 32-36k calls/s).
create view _gateway.public_buckets as
  select b.id from storage.buckets b where b.public;

create view _gateway.public_objects as
  select o.id, o.bucket_id, o.name, o.version, o.metadata, o.user_metadata,
         o.created_at, o.updated_at, o.last_accessed_at
  from storage.objects o
  join storage.buckets b on b.id = o.bucket_id
  where b.public;

-- The login role may read these two views and nothing else in the schema.
grant usage on schema _gateway to authenticator;
grant select on _gateway.public_buckets, _gateway.public_objects to authenticator;
