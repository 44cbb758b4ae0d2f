-- S3u: the statement the gateway sends for bench/run.sh's S3u (as s3.sql's,
-- its parameters as pgbench variables). Regenerate when the SQL the gateway
-- renders changes (docs/benchmarks.md).
\set b random(1, 50)
select null::int8 as total, pg_catalog.count(*) as page, coalesce(pg_catalog.json_agg(_r), '[]')::text as body, null::text as extra from (select "products"."id" as "id", "products"."name" as "name", "products"."price" as "price", "products"."_j0" as "brands" from (select "products".*, (select pg_catalog.to_jsonb(_e) from (select "products_brands_1"."name" as "name") as _e) as "_j0" from "public"."products" as "products" inner join lateral (select "brands_1"."name" as "name" from "public"."brands" as "brands_1" where "brands_1"."id" = "products"."brand_id" and "brands_1"."name" = ('Brand ' || :b)) as "products_brands_1" on true where "products"."is_active" = ('true') limit 20) as "products") as _r;
