-- Resumable uploads (TUS 1.0 at /storage/v1/upload/resumable,
-- gateway/src/storage/resumable.rs): one row per unfinished upload, so that
-- any gateway on this database can continue it, also after a restart.
--
-- `id` is the object version the upload will become: its bytes are kept at
-- `<bucket_id>/<name>/<id>#0` on local disk, or in an S3 multipart upload
-- (`multipart_id`, one `parts` entry per part, the bytes short of a whole
-- part in the blob `<bucket_id>/<name>/<id>#<upload_offset>`). `upload_offset`
-- and `md5_state` (the ETag's running MD5) change together, when a PATCH has
-- stored its bytes. `lock_token` and `lock_expires` are the lease of the
-- request writing it (concurrent PATCHes would otherwise interleave their
-- bytes); `release_requested` asks its holder to stop, as tus-node-server's
-- lockers do, so that a client resuming after a dropped connection is not
-- kept waiting by its own stale request.
create table _gateway.resumable_uploads (
  id uuid primary key,
  bucket_id text not null,
  name text not null,
  upload_length bigint check (upload_length >= 0),
  upload_offset bigint not null default 0 check (upload_offset >= 0),
  -- Upload-Metadata as the client sent it, echoed by HEAD.
  upload_metadata text,
  mimetype text not null,
  cache_control text not null,
  user_metadata jsonb,
  upsert boolean not null,
  md5_state bytea,
  multipart_id text,
  part_size bigint not null,
  parts text[] not null default '{}',
  -- The bytes are whole in their final place (`<bucket_id>/<name>/<id>`):
  -- only the row of storage.objects is missing.
  assembled boolean not null default false,
  -- The object's row points at the bytes: the upload is done, and kept only
  -- so that a client asking again (HEAD) learns that, until it expires.
  finished boolean not null default false,
  lock_token uuid,
  lock_expires timestamptz,
  release_requested boolean not null default false,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);

create index resumable_uploads_expires_at on _gateway.resumable_uploads (expires_at);

-- Storage itself keeps this table (as service_role), never a caller.
revoke all on _gateway.resumable_uploads from public;
grant select, insert, update, delete on _gateway.resumable_uploads to service_role;
