-- csv: the gateway's statement for
-- GET /products?select=id,name,slug,price,brand_id,created_at&order=id&limit=100&offset=N
-- with Accept: text/csv, as PostgreSQL's log showed it on 2026-11-28.
\set off 100 * random(0, 18)
select null::int8 as total, pg_catalog.count(*) as page, coalesce(pg_catalog.string_agg(substring(_r::text, 2, length(_r::text) - 2), chr(10)), '') as body, null::text as extra from (select "products"."id" as "id", "products"."name" as "name", "products"."slug" as "slug", "products"."price" as "price", "products"."brand_id" as "brand_id", "products"."created_at" as "created_at" from (select "products".* from "public"."products" as "products" order by "products"."id" limit 100 offset :off) as "products") as _r;
