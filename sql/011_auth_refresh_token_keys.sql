-- A key per session from which its refresh tokens are derived
-- (gateway/src/auth/tokens.rs), in the column supabase/auth added for its
-- refresh-token algorithm v2 (`auth.sessions.refresh_token_hmac_key`, text).
-- GoTrue's migration adds `refresh_token_counter` with it; this gateway
-- derives tokens from their parent rather than from a counter, so it needs
-- only the key.
alter table auth.sessions add column if not exists refresh_token_hmac_key text;

-- Sessions started before this migration rotated their tokens with an unkeyed
-- hash, so anyone who ever saw one of their tokens can compute the current
-- one: they end here (their users sign in again). Access tokens already
-- issued stay valid until they expire, as after any sign-out.
delete from auth.sessions where refresh_token_hmac_key is null;
