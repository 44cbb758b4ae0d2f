-- S3: products of one brand (an inner join on the slug), first page.
\set b random(1, 50)
select coalesce(pg_catalog.json_agg(t), '[]')::text as body
from (select p.id, p.name, p.price, p.image_path,
             pg_catalog.jsonb_build_object('name', b.name, 'slug', b.slug) as brands
      from public.products as p join public.brands as b on b.id = p.brand_id
      where b.slug = 'brand-' || :b
      order by p.id limit 20) as t;
