-- S2: one product with its brand, as one JSON object, in one statement.
\set id random(1, 2000)
select (pg_catalog.json_agg(t) -> 0)::text as body
from (select p.*, (select pg_catalog.row_to_json(b.*)::jsonb from public.brands as b where b.id = p.brand_id) as brands
      from public.products as p where p.id = :id) as t;
