-- Who may do what with the shop's data (spec §6): anonymous visitors read the
-- active catalogue and the categories and write nothing; any signed-in user is
-- staff and manages products and brands; a user sees every profile (brand cards
-- name their authors) and reads and changes only the company of their own
-- profile. One policy per operation, named as a sentence; no delete policies,
-- as the shop deletes nothing.

alter table public.products enable row level security;
drop policy if exists "Anyone reads active products; staff reads all" on public.products;
create policy "Anyone reads active products; staff reads all" on public.products
  for select to anon, authenticated
  using (status is distinct from false or (select auth.role()) = 'authenticated');
drop policy if exists "Staff creates products" on public.products;
create policy "Staff creates products" on public.products
  for insert to authenticated with check (true);
drop policy if exists "Staff updates products" on public.products;
create policy "Staff updates products" on public.products
  for update to authenticated using (true) with check (true);

alter table public.brands enable row level security;
drop policy if exists "Anyone reads active brands; staff reads all" on public.brands;
create policy "Anyone reads active brands; staff reads all" on public.brands
  for select to anon, authenticated
  using (status or (select auth.role()) = 'authenticated');
drop policy if exists "Staff creates brands" on public.brands;
create policy "Staff creates brands" on public.brands
  for insert to authenticated with check (true);
drop policy if exists "Staff updates brands" on public.brands;
create policy "Staff updates brands" on public.brands
  for update to authenticated using (true) with check (true);

alter table public.product_categories enable row level security;
drop policy if exists "Anyone reads the categories" on public.product_categories;
create policy "Anyone reads the categories" on public.product_categories
  for select to anon, authenticated using (true);

alter table public.profiles enable row level security;
drop policy if exists "Staff reads every profile" on public.profiles;
create policy "Staff reads every profile" on public.profiles
  for select to authenticated using (true);
drop policy if exists "Users update their own profile" on public.profiles;
create policy "Users update their own profile" on public.profiles
  for update to authenticated
  using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));

alter table public.companies enable row level security;
drop policy if exists "Users read their own company" on public.companies;
create policy "Users read their own company" on public.companies
  for select to authenticated
  using (id = (select company_id from public.profiles where user_id = (select auth.uid())));
drop policy if exists "Users update their own company" on public.companies;
create policy "Users update their own company" on public.companies
  for update to authenticated
  using (id = (select company_id from public.profiles where user_id = (select auth.uid())))
  with check (id = (select company_id from public.profiles where user_id = (select auth.uid())));

-- The shop's public face (sql/101_shop_company_public.sql): anyone reads the
-- view, nobody writes through it (companies change through their own
-- policies above).
revoke all on public.shop_company from anon, authenticated;
grant select on public.shop_company to anon, authenticated;
