-- A changed column's value as Supabase Realtime sends it: `to_jsonb` of the
-- value as its own type (supabase/realtime's `realtime.cast(val text, type_
-- regtype)`), so arrays arrive as JSON arrays, timestamps in ISO 8601,
-- composites as objects, domains as their base type. The change feed's
-- reader casts the columns of a batch with one call per value of a type it
-- cannot type itself.
--
-- The type's name comes from the catalog (`format_type`, which quotes and
-- schema-qualifies it); the value is bound.
create function _gateway.realtime_cast(value text, type_oid oid) returns jsonb
  language plpgsql stable
  set search_path = pg_catalog
as $$
declare
  result jsonb;
begin
  execute format('select to_jsonb($1::%s)', format_type(type_oid, null)) using value into result;
  return result;
end
$$;

revoke all on function _gateway.realtime_cast(text, oid) from public;
grant execute on function _gateway.realtime_cast(text, oid) to authenticator;
