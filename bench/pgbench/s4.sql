-- S4: insert one product under the RLS insert policy (bench_user is a member
-- of authenticated) and return it as JSON.
\set brand random(1, 50)
insert into public.products (name, slug, price, brand_id)
values ('Bench', 'pgbench-' || pg_catalog.gen_random_uuid(), 9.99, :brand)
returning pg_catalog.row_to_json(products.*)::text;
