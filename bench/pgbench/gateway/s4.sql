-- S4: the statement the gateway sends for bench/run.sh's S4 (taken from
-- PostgreSQL's log; its four parameters, the row's values, are a pgbench
-- variable and literals here), so that pgbench measures what this SQL costs
-- PostgreSQL apart from how it reaches it. Regenerate when the SQL the gateway renders changes
-- (docs/benchmarks.md).
\set brand random(1, 50)
with pgrst_mut as (insert into "public"."products" as t0 ("brand_id", "name", "price", "slug") values (:brand, 'Bench', 9.99, 'pgg-' || pg_catalog.gen_random_uuid()) returning t0.*, (t0.xmax = 0) as pgrst_inserted), pgrst_ret as (select t0."id", t0."name", t0."slug", t0."description", t0."price", t0."image_path", t0."brand_id", t0."is_active", t0."created_at" from pgrst_mut as t0) select null::int8 as total, (select pg_catalog.count(*) from pgrst_ret) as page, (select coalesce(pg_catalog.json_agg(_r), '[]')::text from (select t0."id" as "id", t0."name" as "name", t0."slug" as "slug", t0."description" as "description", t0."price" as "price", t0."image_path" as "image_path", t0."brand_id" as "brand_id", t0."is_active" as "is_active", t0."created_at" as "created_at" from pgrst_ret as t0) as _r) as body, null::text as extra;
