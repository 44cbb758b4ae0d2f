-- S2: the statement the gateway sends for bench/run.sh's S2 (taken from
-- PostgreSQL's log, its parameters as pgbench variables), so that pgbench
-- measures what this SQL costs PostgreSQL apart from how it reaches it.
-- Regenerate when the SQL the gateway renders changes (docs/benchmarks.md).
\set id random(1, 2000)
select null::int8 as total, pg_catalog.count(*) as page, (pg_catalog.json_agg(_r) -> 0)::text as body, null::text as extra from (select "products"."id" as "id", "products"."name" as "name", "products"."slug" as "slug", "products"."description" as "description", "products"."price" as "price", "products"."image_path" as "image_path", "products"."brand_id" as "brand_id", "products"."is_active" as "is_active", "products"."created_at" as "created_at", (select pg_catalog.to_jsonb(_e) from (select "brands_1"."id" as "id", "brands_1"."name" as "name", "brands_1"."slug" as "slug", "brands_1"."is_active" as "is_active" from "public"."brands" as "brands_1" where "brands_1"."id" = "products"."brand_id" limit 1) as _e) as "brands" from (select "products".* from "public"."products" as "products" where "products"."id" = :id limit 1000) as "products") as _r;
