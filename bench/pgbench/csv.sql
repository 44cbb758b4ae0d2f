-- csv: 100 rows of six columns as CSV lines, each row's text form without
-- its parentheses (what PostgREST and the gateway answer under a header
-- line; the header is written by the client here). RLS applies (bench_anon).
\set off 100 * random(0, 18)
select coalesce(pg_catalog.string_agg(substring(t::text, 2, length(t::text) - 2), chr(10)), '')
from (select id, name, slug, price, brand_id, created_at
      from public.products order by id limit 100 offset :off) as t;
