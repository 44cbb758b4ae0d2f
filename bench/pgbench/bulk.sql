-- bulk: insert 100 products in one statement under the RLS insert policy
-- (bench_user is a member of authenticated), returning nothing.
\set brand random(1, 50)
insert into public.products (name, slug, price, brand_id)
select 'Bulk', 'pgbench-' || pg_catalog.gen_random_uuid(), 9.99, 1 + (:brand + i) % 50
from pg_catalog.generate_series(1, 100) as i;
