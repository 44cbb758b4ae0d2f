-- S6's physical limit: pgbench running the statements of one refresh-token
-- grant (gateway/src/auth/store.rs `refresh`), one session per client, as
-- the gateway runs them (lock the session, read the token, rotate, render the
-- user). :client_id picks the client's own session from bench_sessions.
\set n :client_id + 1
begin;
select s.id from auth.sessions s where s.id = (select id from bench_sessions where n = :n) for update of s;
select rt.revoked, extract(epoch from clock_timestamp() - rt.updated_at)::float8,
       (select a.token from auth.refresh_tokens a where a.session_id = rt.session_id and not a.revoked order by a.id desc limit 1)
  from auth.refresh_tokens rt
  where rt.token = (select token from auth.refresh_tokens where session_id = (select id from bench_sessions where n = :n) and not revoked order by id desc limit 1);
select coalesce(banned_until > now(), false) from auth.users where id = (select user_id from bench_sessions where n = :n);
with old as (update auth.refresh_tokens set revoked = true, updated_at = now()
             where session_id = (select id from bench_sessions where n = :n) and not revoked returning token, session_id, user_id),
     s as (update auth.sessions set refreshed_at = now() at time zone 'utc', updated_at = now()
           where id = (select id from bench_sessions where n = :n))
insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, parent, session_id)
  select '00000000-0000-0000-0000-000000000000', md5(random()::text) || md5(random()::text), user_id, false, now(), now(), token, session_id from old;
select auth.gateway_user_json(u) from auth.users u where u.id = (select user_id from bench_sessions where n = :n);
commit;
