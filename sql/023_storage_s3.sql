-- Access keys of the S3 protocol at /storage/v1/s3 (`gateway storage s3-keys
-- create|list|revoke`; docs/services/s3.md), as Supabase's dashboard makes
-- them (https://supabase.com/docs/guides/storage/s3/authentication). A
-- request signed with one acts as service_role.
--
-- SigV4 proves a request with an HMAC keyed by the secret itself, so the
-- gateway must be able to read the secret back: it is sealed as function
-- secrets are (040_functions_secrets.sql), AES-256-GCM under a key derived
-- from the JWT secret and bound to the access key id, so a dump of the
-- database alone does not reveal it.
--
-- Only the gateway's own bookkeeping (as service_role) touches the table.

create table if not exists storage.s3_access_keys (
  access_key_id text primary key check (access_key_id ~ '^[0-9a-f]{32}$'),
  -- base64(nonce || AES-256-GCM ciphertext and tag) of the secret access key.
  sealed_secret text not null,
  description text not null default '',
  created_at timestamptz not null default now()
);

alter table storage.s3_access_keys enable row level security;
revoke all on storage.s3_access_keys from public, anon, authenticated;
grant select, insert, delete on storage.s3_access_keys to service_role;

-- Multipart uploads of the S3 protocol under way
-- (https://docs.aws.amazon.com/AmazonS3/latest/userguide/mpuoverview.html):
-- each part's bytes are a blob of their own beside the object's versions
-- (`<bucket>/<key>/<upload id>.part<n>.<uuid>`, outside the versions' layout,
-- so a sweep leaves them be); completing the upload streams them, in order,
-- through the object upload, and removes them, as aborting does. Read and
-- written by the gateway as service_role; who may touch an upload is the
-- gateway's check (its owner, or service_role).
create table if not exists storage.s3_multipart_uploads (
  id uuid primary key,
  bucket_id text not null,
  key text not null,
  owner_id text,
  content_type text not null,
  user_metadata jsonb,
  created_at timestamptz not null default now()
);

create table if not exists storage.s3_multipart_parts (
  upload_id uuid not null references storage.s3_multipart_uploads (id) on delete cascade,
  part_number int not null check (part_number between 1 and 10000),
  etag text not null,
  size bigint not null,
  blob text not null,
  created_at timestamptz not null default now(),
  primary key (upload_id, part_number)
);

alter table storage.s3_multipart_uploads enable row level security;
alter table storage.s3_multipart_parts enable row level security;
revoke all on storage.s3_multipart_uploads, storage.s3_multipart_parts from public, anon, authenticated;
grant select, insert, update, delete on storage.s3_multipart_uploads, storage.s3_multipart_parts to service_role;
