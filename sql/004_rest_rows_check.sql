-- The check a REST write makes on the rows it touched (a singular object
-- asked for, `Prefer: handling=strict, max-affected=n`), as a statement of its
-- own. 003's `rows_within` ran inside the write statement, before PostgreSQL
-- checks foreign keys and runs the other AFTER triggers at the end of that
-- statement, so a count out of bounds hid their errors; PostgREST counts after
-- the statement, so theirs come first. Now the write statement records its
-- count in the transaction-local setting `gateway.rows_touched`, and the
-- gateway pipelines a call of this function behind it, before the COMMIT: it
-- fails outside the bounds with the count as detail, which aborts the
-- transaction, so the COMMIT rolls the write back, and the gateway answers
-- with PostgREST's error for that count.
--
-- `rows_within` stays, unused by this gateway, so that one of the previous
-- version still works against a database migrated by this one.
create or replace function _gateway.check_rows_touched(at_least bigint, at_most bigint)
returns void
language plpgsql stable
as $$
declare
  touched bigint := nullif(pg_catalog.current_setting('gateway.rows_touched', true), '')::bigint;
begin
  -- A write that did not record its count is a gateway bug: refuse it rather
  -- than let it commit unchecked.
  if touched is null then
    raise exception using
      errcode = 'XX000',
      message = 'no REST write recorded the rows it touched in this transaction';
  end if;
  if touched < at_least or touched > at_most then
    raise exception using
      errcode = 'GW001',
      message = 'the rows a REST write touched are out of bounds',
      detail = touched::text;
  end if;
end
$$;

revoke all on function _gateway.check_rows_touched(bigint, bigint) from public;
grant execute on function _gateway.check_rows_touched(bigint, bigint)
  to anon, authenticated, service_role;
