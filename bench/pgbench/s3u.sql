-- S3u: S3 without an order, filtered on the brand's name: a lateral join on
-- the brand, the best hand-written shape measured (docs/benchmarks.md).
\set b random(1, 50)
select coalesce(pg_catalog.json_agg(t), '[]')::text as body
from (select p.id, p.name, p.price, pg_catalog.jsonb_build_object('name', b.name) as brands
      from public.brands as b
      cross join lateral (select p.id, p.name, p.price from public.products as p
                          where p.brand_id = b.id and p.is_active = true limit 20) as p
      where b.name = 'Brand ' || :b) as t;
