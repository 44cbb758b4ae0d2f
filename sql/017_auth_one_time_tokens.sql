-- GoTrue's `auth.one_time_tokens` (supabase/auth migrations
-- 20240427152123_one_time_tokens_table, 20240612123726_update_one_time_tokens):
-- one row per pending mailed token, beside the `auth.users` column that holds
-- it, as GoTrue keeps both (`models.CreateOneTimeToken` and
-- `ClearOneTimeTokenForUser` next to each column write). Tools and SQL
-- written against Supabase read this table.
--
-- Here the columns stay the source, and a trigger on `auth.users` keeps the
-- table in step with them: every statement that records, uses, replaces or
-- forgets a token (`auth::mail::store`, the admin API, `gateway import`)
-- writes a column, so none of them can forget the table. `relates_to` is the
-- address the token was sent to: the user's e-mail, or the new one for
-- `email_change_token_new`. Phone change tokens are not made (no SMS).

do $$
begin
  if not exists (select from pg_type t join pg_namespace n on n.oid = t.typnamespace
                 where n.nspname = 'auth' and t.typname = 'one_time_token_type') then
    create type auth.one_time_token_type as enum (
      'confirmation_token',
      'reauthentication_token',
      'recovery_token',
      'email_change_token_new',
      'email_change_token_current',
      'phone_change_token'
    );
  end if;
end
$$;

create table if not exists auth.one_time_tokens (
  id uuid primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  token_type auth.one_time_token_type not null,
  token_hash text not null,
  relates_to text not null,
  created_at timestamp without time zone not null default now(),
  updated_at timestamp without time zone not null default now(),
  constraint one_time_tokens_token_hash_check check (char_length(token_hash) > 0)
);
create index if not exists one_time_tokens_token_hash_hash_idx on auth.one_time_tokens using hash (token_hash);
create index if not exists one_time_tokens_relates_to_hash_idx on auth.one_time_tokens using hash (relates_to);
create unique index if not exists one_time_tokens_user_id_token_type_key
  on auth.one_time_tokens (user_id, token_type);

revoke all on auth.one_time_tokens from anon, authenticated;
grant select, insert, update, delete on auth.one_time_tokens to service_role;
grant usage on type auth.one_time_token_type to service_role;

-- Sets the row of one token type to what its column holds: the hash when
-- there is one (a new hash is a new token: new id and times), none otherwise.
create or replace function auth.gateway_sync_one_time_token(
  p_user_id uuid,
  p_type auth.one_time_token_type,
  p_hash text,
  p_relates_to text
) returns void
language plpgsql
set search_path = ''
as $$
begin
  if coalesce(p_hash, '') = '' then
    delete from auth.one_time_tokens where user_id = p_user_id and token_type = p_type;
    return;
  end if;
  insert into auth.one_time_tokens (id, user_id, token_type, token_hash, relates_to, created_at, updated_at)
  values (gen_random_uuid(), p_user_id, p_type, p_hash, coalesce(p_relates_to, ''), now(), now())
  on conflict (user_id, token_type) do update
    set id = case when auth.one_time_tokens.token_hash = excluded.token_hash
                  then auth.one_time_tokens.id else excluded.id end,
        created_at = case when auth.one_time_tokens.token_hash = excluded.token_hash
                          then auth.one_time_tokens.created_at else excluded.created_at end,
        token_hash = excluded.token_hash,
        relates_to = excluded.relates_to,
        updated_at = now();
end
$$;

create or replace function auth.gateway_one_time_tokens_in_step() returns trigger
language plpgsql
set search_path = ''
as $$
begin
  perform auth.gateway_sync_one_time_token(new.id, 'confirmation_token', new.confirmation_token, new.email);
  perform auth.gateway_sync_one_time_token(new.id, 'recovery_token', new.recovery_token, new.email);
  perform auth.gateway_sync_one_time_token(new.id, 'reauthentication_token', new.reauthentication_token, new.email);
  perform auth.gateway_sync_one_time_token(
    new.id, 'email_change_token_current', new.email_change_token_current, new.email);
  perform auth.gateway_sync_one_time_token(
    new.id, 'email_change_token_new', new.email_change_token_new, new.email_change);
  return null;
end
$$;

drop trigger if exists one_time_tokens_in_step on auth.users;
create trigger one_time_tokens_in_step
  after insert or update of confirmation_token, recovery_token, reauthentication_token,
    email_change_token_current, email_change_token_new, email, email_change
  on auth.users
  for each row execute function auth.gateway_one_time_tokens_in_step();

-- Tokens pending when this file is applied.
update auth.users set confirmation_token = confirmation_token
where coalesce(confirmation_token, '') <> '' or coalesce(recovery_token, '') <> ''
   or coalesce(reauthentication_token, '') <> '' or coalesce(email_change_token_current, '') <> ''
   or coalesce(email_change_token_new, '') <> '';
