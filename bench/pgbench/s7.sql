-- S7: the metadata SQL of one 200 KB upload, as the gateway sends it: the
-- bucket's limits read as service_role, then the row inserted as the caller
-- (authenticated, under the store-products insert policy) and committed.
-- Run by bench/storage.sh as the superuser with -M prepared and
-- -D claims=<the caller's claims JSON> -D sub=<the caller's id>.
begin isolation level read committed read only;
select pg_catalog.set_config('role', 'service_role', true);
select public, file_size_limit, allowed_mime_types from storage.buckets where id = 'store-products';
commit;
begin isolation level read committed read write;
select pg_catalog.set_config('role', 'authenticated', true), pg_catalog.set_config('request.jwt.claims', :claims, true);
insert into storage.objects (bucket_id, name, owner, owner_id, metadata, version, id)
values ('store-products', 'products/pgbench-' || pg_catalog.gen_random_uuid() || '.png', :sub::uuid, :sub,
        '{"eTag":"\"0\"","size":204800,"mimetype":"image/png","cacheControl":"no-cache","contentLength":204800,"httpStatusCode":200}',
        pg_catalog.gen_random_uuid()::text, pg_catalog.gen_random_uuid());
commit;
