-- The mailed tokens of `/auth/v1` (README "E-mail over SMTP"): `POST`/`GET
-- /verify` find a user by the hash of a token in these columns, so each gets
-- an index, as GoTrue's `confirmation_token_idx` and friends
-- (supabase/auth `migrations/20220429102000_add_unique_idx.up.sql`; not
-- unique here, and whole, so that a lookup by a bound value always uses it).

create index if not exists users_confirmation_token_idx on auth.users (confirmation_token);
create index if not exists users_recovery_token_idx on auth.users (recovery_token);
create index if not exists users_email_change_token_current_idx on auth.users (email_change_token_current);
create index if not exists users_email_change_token_new_idx on auth.users (email_change_token_new);
create index if not exists users_reauthentication_token_idx on auth.users (reauthentication_token);
