-- The product-image bucket: anyone reads (an <img> sends no token), signed-in
-- staff uploads under products/ (spec §7 "Image upload"). Uploads never
-- overwrite (the shop sends x-upsert: false), so no update or delete policy.

drop policy if exists "Anyone reads product images" on storage.objects;
create policy "Anyone reads product images" on storage.objects
  for select to anon, authenticated
  using (bucket_id = 'store-products');

drop policy if exists "Staff uploads product images" on storage.objects;
create policy "Staff uploads product images" on storage.objects
  for insert to authenticated
  with check (bucket_id = 'store-products' and (storage.foldername(name))[1] = 'products');
