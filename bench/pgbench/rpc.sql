-- rpc: the function's first 20 rows by id, as JSON (RLS applies: bench_anon).
\set low random(0, 980)
select coalesce(pg_catalog.json_agg(t), '[]')::text
from (select * from public.products_between(:low, :low + 20) order by id limit 20) as t;
