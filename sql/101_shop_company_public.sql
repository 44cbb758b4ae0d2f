-- The shop's public face (issue 18): the name, e-mail and telephone edited in
-- Configuración are what the public site shows, and the three display
-- toggles take effect for visitors too. Visitors may not read
-- public.companies (its policies give each user their own company only), so
-- this view shows the shop's company, the first one, with those fields alone.
-- It runs with its owner's rights (a view's default, security_invoker off),
-- which is what lets anon read through it and nothing else of the table;
-- policies/shop.sql grants it. The seed and the shop have one company.
create view public.shop_company as
select name, email, phone, display_category_stock, display_product_stock, display_users
from public.companies
order by id
limit 1;

comment on view public.shop_company is
  'The public fields of the shop''s company: name, e-mail, telephone and the three display settings.';
