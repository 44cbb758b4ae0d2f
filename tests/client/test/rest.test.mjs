// The shop's REST calls (spec §7) through the real postgrest-js, against the
// fixture in gateway/tests/fixtures/shop.sql.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { client, serviceKey } from '../lib/env.mjs'

const anon = client()
const service = client(serviceKey)

test('the store listing embeds the brand, filters, orders two ways and counts exactly', async () => {
  const { data, error, count, status, statusText } = await anon
    .from('products')
    .select('*, brands(id, name, description)', { count: 'exact' })
    .eq('status', true)
    .gt('quantity', 0)
    .ilike('name', '%phone%')
    .order('featured', { ascending: false, nullsFirst: false })
    .order('price', { ascending: false })
    .range(0, 0)
  assert.equal(error, null)
  assert.equal(status, 206)
  assert.equal(statusText, 'Partial Content')
  assert.equal(count, 2)
  assert.deepEqual(data.map((p) => p.id), [1])
  assert.deepEqual(data[0].brands, { id: 1, name: 'Apple', description: 'Cupertino' })
  assert.equal(data[0].price, 999)
  const next = await anon
    .from('products')
    .select('id, brands(name)', { count: 'exact' })
    .ilike('name', '%phone%')
    .gt('quantity', 0)
    .order('featured', { ascending: false, nullsFirst: false })
    .range(1, 1)
  assert.deepEqual(next.data, [{ id: 5, brands: null }])
})

test('brands with active products come through an inner join', async () => {
  const { data, error } = await anon
    .from('brands')
    .select('id, name, products!inner(id)')
    .eq('status', true)
    .eq('products.status', true)
    .order('name', { ascending: true })
  assert.equal(error, null)
  assert.deepEqual(data.map((b) => b.name), ['Apple', 'Nokia', 'Samsung'])
  assert.deepEqual(data[0].products.map((p) => p.id).sort(), [1, 2])
})

test('single() returns an object, and an error when there is none', async () => {
  const one = await anon.from('products').select('id, name').eq('id', 3).single()
  assert.deepEqual(one.data, { id: 3, name: 'Galaxy S24' })
  const none = await anon.from('products').select('id').eq('id', 999).single()
  assert.equal(none.status, 406)
  assert.equal(none.error.code, 'PGRST116')
  const maybe = await anon.from('products').select('id').eq('id', 999).maybeSingle()
  assert.equal(maybe.data, null)
  assert.equal(maybe.error, null)
})

test('head counts read only the total', async () => {
  const { data, count, error } = await anon.from('products').select('*', { count: 'exact', head: true })
  assert.equal(error, null)
  assert.equal(data, null)
  assert.equal(count, 6)
  const perBrand = await anon.from('products').select('*', { count: 'exact', head: true }).eq('brand_id', 2)
  assert.equal(perBrand.count, 2)
})

test('insert and update with select() return the rows, and rollback() keeps nothing', async () => {
  const created = await service
    .from('products')
    .insert({ name: 'Pixel 8', price: 699, brand_id: null, featured: true })
    .select()
    .single()
  assert.equal(created.error, null)
  assert.equal(created.status, 201)
  assert.equal(created.data.name, 'Pixel 8')
  const updated = await service.from('products').update({ price: 649 }).eq('id', created.data.id).select('id, price')
  assert.deepEqual(updated.data, [{ id: created.data.id, price: 649 }])
  const removed = await service.from('products').delete().eq('id', created.data.id)
  assert.equal(removed.status, 204)
  const upserted = await service.from('notes').upsert({ id: 1, body: 'changed' }, { onConflict: 'id' }).select()
  assert.equal(upserted.status, 200)
  assert.deepEqual(upserted.data, [{ id: 1, body: 'changed' }])
})

test('rpc calls functions with body or query arguments', async () => {
  assert.equal((await anon.rpc('add', { a: 2, b: 3 })).data, 5)
  assert.equal((await anon.rpc('add', { a: 2, b: 3 }, { get: true })).data, 5)
  const rows = await anon.rpc('products_in', { category: 'Celulares' }).select('id').order('id').limit(2)
  assert.deepEqual(rows.data, [{ id: 1 }, { id: 2 }])
})

test('errors reach the app as PostgREST wrote them', async () => {
  const missing = await anon.from('nope').select('*')
  assert.equal(missing.status, 404)
  assert.equal(missing.error.code, 'PGRST205')
  const denied = await anon.from('products').insert({ name: 'x' })
  assert.equal(denied.status, 401)
  assert.equal(denied.error.code, '42501')
  const badFilter = await anon.from('products').select('*').eq('price', 'cheap')
  assert.equal(badFilter.status, 400)
  assert.equal(badFilter.error.code, '22P02')
})
