-- S1, the best equivalent SQL (performance.md §4.2 best1): the page first,
-- then the embed, and a separate count. RLS applies (bench_anon).
\set off 20 * random(0, 9)
select (select pg_catalog.count(*) from public.products) as total,
       coalesce(pg_catalog.json_agg(t order by t.id), '[]')::text as body
from (select p.*, pg_catalog.row_to_json(b.*)::jsonb as brands
      from (select * from public.products order by id limit 20 offset :off) as p
      left join public.brands as b on b.id = p.brand_id) as t;
