-- The shop's live tables (issue 21): changes to products and brands are sent
-- to subscribed channels (`/realtime/v1`, README "Realtime"), as an app enables
-- a table on Supabase. The admin's lists and dashboard refetch on them, and the
-- store updates stock in place (frontend/src/lib/api/watchTables.ts). Who sees
-- which change is decided by the tables' RLS, as for reads: visitors see active
-- products' changes only.
alter publication supabase_realtime add table public.products, public.brands;
