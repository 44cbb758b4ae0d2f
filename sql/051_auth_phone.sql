-- Phone codes in `auth.one_time_tokens` (supabase/auth
-- `internal/models/one_time_token.go`): GoTrue records a phone's sign-up or
-- sign-in code with `relates_to` the phone, and `phone_change_token` with the
-- new number. The trigger of 017_auth_one_time_tokens.sql keeps the table in
-- step with the `auth.users` columns; here it also follows `phone_change_token`,
-- and a user without an e-mail relates its codes to its phone.

create or replace function auth.gateway_one_time_tokens_in_step() returns trigger
language plpgsql
set search_path = ''
as $$
declare
  addressed_to text := coalesce(nullif(new.email, ''), new.phone);
begin
  perform auth.gateway_sync_one_time_token(new.id, 'confirmation_token', new.confirmation_token, addressed_to);
  perform auth.gateway_sync_one_time_token(new.id, 'recovery_token', new.recovery_token, addressed_to);
  perform auth.gateway_sync_one_time_token(new.id, 'reauthentication_token', new.reauthentication_token, addressed_to);
  perform auth.gateway_sync_one_time_token(
    new.id, 'email_change_token_current', new.email_change_token_current, new.email);
  perform auth.gateway_sync_one_time_token(
    new.id, 'email_change_token_new', new.email_change_token_new, new.email_change);
  perform auth.gateway_sync_one_time_token(
    new.id, 'phone_change_token', new.phone_change_token, new.phone_change);
  return null;
end
$$;

drop trigger if exists one_time_tokens_in_step on auth.users;
create trigger one_time_tokens_in_step
  after insert or update of confirmation_token, recovery_token, reauthentication_token,
    email_change_token_current, email_change_token_new, phone_change_token, email, email_change, phone,
    phone_change
  on auth.users
  for each row execute function auth.gateway_one_time_tokens_in_step();

-- GoTrue's user object also shows a pending phone change (`new_phone`,
-- `phone_change_sent_at`; supabase/auth `internal/models/user.go`): the user JSON
-- of 015_auth_mfa_anonymous.sql with those two added.
create or replace function auth.gateway_user_json(u auth.users) returns jsonb
language sql stable
as $$
  select jsonb_object_agg(key, value)
  from jsonb_each(jsonb_build_object(
    'id', u.id,
    'aud', coalesce(u.aud, ''),
    'role', coalesce(u.role, ''),
    'email', coalesce(u.email, ''),
    'email_confirmed_at', auth.gateway_timestamp(u.email_confirmed_at),
    'invited_at', auth.gateway_timestamp(u.invited_at),
    'phone', coalesce(u.phone, ''),
    'phone_confirmed_at', auth.gateway_timestamp(u.phone_confirmed_at),
    'confirmation_sent_at', auth.gateway_timestamp(u.confirmation_sent_at),
    'confirmed_at', auth.gateway_timestamp(u.confirmed_at),
    'recovery_sent_at', auth.gateway_timestamp(u.recovery_sent_at),
    'new_email', nullif(u.email_change, ''),
    'email_change_sent_at', auth.gateway_timestamp(u.email_change_sent_at),
    'new_phone', nullif(u.phone_change, ''),
    'phone_change_sent_at', auth.gateway_timestamp(u.phone_change_sent_at),
    'last_sign_in_at', auth.gateway_timestamp(u.last_sign_in_at),
    'app_metadata', coalesce(u.raw_app_meta_data, '{}'),
    'user_metadata', coalesce(u.raw_user_meta_data, '{}'),
    'identities', coalesce((
      select jsonb_agg(jsonb_build_object(
        'identity_id', i.id,
        'id', i.provider_id,
        'user_id', i.user_id,
        'identity_data', i.identity_data,
        'provider', i.provider,
        'last_sign_in_at', auth.gateway_timestamp(i.last_sign_in_at),
        'created_at', auth.gateway_timestamp(i.created_at),
        'updated_at', auth.gateway_timestamp(i.updated_at),
        'email', i.email) order by i.created_at)
      from auth.identities i where i.user_id = u.id), '[]'),
    'factors', (select jsonb_agg(auth.gateway_factor_json(f) order by f.created_at)
                from auth.mfa_factors f where f.user_id = u.id),
    'created_at', auth.gateway_timestamp(u.created_at),
    'updated_at', auth.gateway_timestamp(u.updated_at),
    'banned_until', auth.gateway_timestamp(u.banned_until),
    'deleted_at', auth.gateway_timestamp(u.deleted_at),
    'is_anonymous', u.is_anonymous))
  where value <> 'null'::jsonb
$$;
