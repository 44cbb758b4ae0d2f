// The fixture with every case (gateway/tests/fixtures/types.sql), through
// its golden file: calls, sets, computed fields, views, enums, other schemas.
import { createClient } from '@supabase/supabase-js';
import { expectTypeOf } from 'expect-type';
import {
  Constants,
  type CompositeTypes,
  type Database,
  type Enums,
  type Tables,
  type TablesInsert,
  type TablesUpdate,
} from '../../gateway/tests/fixtures/types.database';

const db = createClient<Database>('http://127.0.0.1:54321', 'sb_publishable_key');

type Data<Query> = Awaited<Query> extends { data: infer D } ? D : never;
type Status = 'ONLINE' | 'OFFLINE';

// An RPC call: named arguments in, the declared type out.
const status = db.rpc('get_status', { name_param: 'alice' });
expectTypeOf<Data<typeof status>>().toEqualTypeOf<Status | null>();
// @ts-expect-error `name_param` is required.
db.rpc('get_status', {});
// @ts-expect-error `name_param` is text.
db.rpc('get_status', { name_param: 1 });

// `returns table (...)` with a defaulted argument: rows, filtered and selected.
const found = db.rpc('search_users', { query: 'a%' }).select('username').eq('status', 'ONLINE');
expectTypeOf<Data<typeof found>>().toEqualTypeOf<{ username: string }[] | null>();

// `setof users` embeds what users embed; `rows 1` is still an array on the
// wire, as PostgREST answers it.
const byStatus = db.rpc('users_by_status', { status: 'ONLINE' }).select('username, messages(id)');
expectTypeOf<Data<typeof byStatus>>().toEqualTypeOf<{ username: string; messages: { id: number }[] }[] | null>();
const first = db.rpc('first_user').select('username');
expectTypeOf<Data<typeof first>>().toEqualTypeOf<{ username: string }[] | null>();

// Overloads are a union: either signature calls.
const sum = db.rpc('add', { a: 1, b: 2 });
const joined = db.rpc('add', { a: 'a', b: 'b' });
expectTypeOf<Data<typeof sum>>().toEqualTypeOf<number | null>();
expectTypeOf<Data<typeof joined>>().toEqualTypeOf<string | null>();

// A function returning void answers no body.
const nothing = db.rpc('void_func');
expectTypeOf<Data<typeof nothing>>().toEqualTypeOf<undefined | null>();

// A computed field is selected like a column; a computed relationship
// embeds (to one row: postgrest-js types it as an object of nullable fields).
const total = db.from('users').select('username, message_total');
expectTypeOf<Data<typeof total>>().toEqualTypeOf<{ username: string; message_total: number | null }[] | null>();
const latest = db.from('users').select('username, latest_message(id)');
expectTypeOf<Data<typeof latest>>().toEqualTypeOf<
  { username: string; latest_message: { id: number | null } }[] | null
>();

// Identities: `generated always` cannot be written; `by default` may be.
db.from('messages').insert({ username: 'alice', channel_id: 1 });
// @ts-expect-error `id` is generated always.
db.from('messages').insert({ id: 1, username: 'alice', channel_id: 1 });
db.from('channels').insert({ id: 1 });
// @ts-expect-error `username` and `channel_id` are required.
db.from('messages').insert({ message: 'hi' });

// An updatable view takes writes; a view that is not has no Insert.
db.from('active_users').insert({ username: 'alice' });
expectTypeOf<Database['public']['Views']['message_counts']>().not.toHaveProperty('Insert');

// A one-to-one key embeds an object; a view inherits its table's keys.
const details = db.from('channels').select('id, channel_details(details)');
expectTypeOf<Data<typeof details>>().toEqualTypeOf<
  { id: number; channel_details: { details: string | null } | null }[] | null
>();
const recent = db.from('recent_messages').select('author, users(status)');
expectTypeOf<Data<typeof recent>>().toEqualTypeOf<
  { author: string | null; users: { status: Status | null } | null }[] | null
>();

// Enums, composite types, domains and arrays.
expectTypeOf<Tables<'users'>['status']>().toEqualTypeOf<Status | null>();
expectTypeOf<Tables<'users'>['statuses']>().toEqualTypeOf<Status[] | null>();
expectTypeOf<Tables<'users'>['age']>().toEqualTypeOf<number | null>();
expectTypeOf<Tables<'users'>['contact']>().toEqualTypeOf<string>();
expectTypeOf<CompositeTypes<'address'>>().toEqualTypeOf<{
  street: string | null;
  city: string | null;
  tags: string[] | null;
}>();
expectTypeOf<Enums<'user_status'>>().toEqualTypeOf<Status>();
expectTypeOf(Constants.public.Enums.user_status).toEqualTypeOf<readonly ['ONLINE', 'OFFLINE']>();

// Another schema, through the helpers and through a client of its own.
expectTypeOf<Enums<{ schema: 'personal' }, 'mood'>>().toEqualTypeOf<'happy' | 'sad'>();
expectTypeOf<TablesInsert<{ schema: 'personal' }, 'diary'>['author']>().toEqualTypeOf<string | null | undefined>();
expectTypeOf<TablesUpdate<'scalars'>['price']>().toEqualTypeOf<number | undefined>();
const diary = createClient<Database, 'personal'>('http://127.0.0.1:54321', 'key', { db: { schema: 'personal' } })
  .from('diary')
  .select('mood');
expectTypeOf<Data<typeof diary>>().toEqualTypeOf<{ mood: 'happy' | 'sad' }[] | null>();
