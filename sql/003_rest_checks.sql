-- The check a REST write makes on the rows it touched (a singular object
-- asked for, `Prefer: handling=strict, max-affected=n`), done inside the write
-- statement itself: the statement passes its count through this function,
-- which fails outside the bounds. The failure aborts the transaction, so the
-- COMMIT the gateway sends in the same round trip rolls the write back, and
-- the gateway answers with PostgREST's error for the count in the detail.
--
-- It lives in the gateway's own schema, which no API exposes; the API roles
-- may only call this function there (the schema's tables stay closed to them).
grant usage on schema _gateway to anon, authenticated, service_role;

create or replace function _gateway.rows_within(touched bigint, at_least bigint, at_most bigint)
returns bigint
language plpgsql immutable
as $$
begin
  if touched < at_least or touched > at_most then
    raise exception using
      errcode = 'GW001',
      message = 'the rows a REST write touched are out of bounds',
      detail = touched::text;
  end if;
  return touched;
end
$$;

revoke all on function _gateway.rows_within(bigint, bigint, bigint) from public;
grant execute on function _gateway.rows_within(bigint, bigint, bigint)
  to anon, authenticated, service_role;
