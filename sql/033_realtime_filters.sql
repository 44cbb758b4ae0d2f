-- Realtime's `postgres_changes` filters, compared as PostgreSQL compares the
-- column's type: a filter `column=[not.]op.value` holds when Realtime's
-- `realtime.check_equality_op(op, type, value, filter, negate)` is true
-- (supabase/realtime `lib/realtime/tenants/repo/migrations`,
-- `add_postgrest_filter_ops` and `validate_filter_operator_against_column_type`).
-- The column's value comes as `#>> '{}'` of its `to_jsonb` form, as Realtime
-- reads it back from its `wal_column`.
--
-- The SQL of one operator on the columns `u.v` (the column's value) and
-- `u.f` (the filter's value) of a row, both text, for the type `type_oid`
-- (named by `format_type`, which quotes and qualifies it). Null when the
-- operator is not one of Realtime's.
create function _gateway.realtime_filter_sql(op text, negate boolean, type_oid oid) returns text
  language plpgsql stable
  set search_path = pg_catalog
as $$
declare
  t text := format_type(type_oid, null);
  symbol text := case op
    when 'eq' then '=' when 'neq' then '!=' when 'lt' then '<' when 'lte' then '<='
    when 'gt' then '>' when 'gte' then '>=' when 'like' then 'like' when 'ilike' then 'ilike'
    when 'match' then '~' when 'imatch' then '~*' end;
  expression text;
begin
  if op = 'isdistinct' then
    return format('(u.v::%s %s u.f::%s)', t,
      case when negate then 'is not distinct from' else 'is distinct from' end, t);
  end if;
  -- `is` takes a keyword, not a value of the type: null works on any
  -- column, true, false and unknown on booleans.
  if op = 'is' then
    return format(
      '(case u.f when ''null'' then u.v::%1$s is %2$s null when ''true'' then u.v::boolean is %2$s true '
      'when ''false'' then u.v::boolean is %2$s false when ''unknown'' then u.v::boolean is %2$s unknown end)',
      t, case when negate then 'not' else '' end);
  end if;
  if op = 'in' then
    expression := format('(u.v::%s = any (u.f::%s[]))', t, t);
  elsif symbol is not null then
    expression := format('(u.v::%s %s (u.f::%s))', t, symbol, t);
  else
    return null;
  end if;
  return case when negate then format('(not %s)', expression) else expression end;
end
$$;

-- Which filter rows hold: row n compares `column_values[n]` with
-- `filter_values[n]` by `ops[n]` (negated if `negates[n]`) as
-- `type_oids[n]`. One statement per distinct operator and type, whatever
-- the number of rows; a null comparison does not hold, as in Realtime. A
-- comparison that fails (a column whose type changed since the join) holds
-- for none of its rows, rather than failing every subscription's batch.
create function _gateway.realtime_filters_hold(
  ops text[], negates boolean[], type_oids oid[], column_values text[], filter_values text[]
) returns setof integer
  language plpgsql stable
  set search_path = pg_catalog
as $$
declare
  kind record;
  expression text;
  held integer[];
begin
  for kind in
    select distinct u.op, u.negate, u.type_oid from unnest(ops, negates, type_oids) as u(op, negate, type_oid)
  loop
    expression := _gateway.realtime_filter_sql(kind.op, kind.negate, kind.type_oid);
    continue when expression is null;
    begin
      execute format(
        'select array_agg(u.n::integer) from unnest($1, $2, $3, $4, $5) with ordinality as u(op, negate, type_oid, v, f, n) '
        -- `case`, not `and`: only this kind's rows may be cast to its type
        -- (PostgreSQL evaluates the conditions of `and` in any order).
        'where case when u.op = $6 and u.negate = $7 and u.type_oid = $8 then coalesce(%s, false) else false end',
        expression)
        using ops, negates, type_oids, column_values, filter_values, kind.op, kind.negate, kind.type_oid
        into held;
    exception when others then
      raise warning 'a realtime filter % on type % failed: %', kind.op, format_type(kind.type_oid, null), sqlerrm;
      held := null;
    end;
    return query select unnest(coalesce(held, '{}'));
  end loop;
end
$$;

-- Refuses, with Realtime's messages (its `realtime.subscription_check_filters`),
-- a binding whose filters or `select` name a column `role` cannot select,
-- give a value its column's type cannot take, list more than 100 `in`
-- values, or use an operator the column's type has not.
create function _gateway.realtime_check_binding(
  relation regclass, role text, columns text[], ops text[], filter_values text[], negates boolean[],
  selected text[]
) returns void
  language plpgsql stable
  set search_path = pg_catalog
as $$
declare
  names text[] := coalesce(
    (select array_agg(a.attname::text order by a.attnum) from pg_catalog.pg_attribute a
     where a.attrelid = relation and a.attnum > 0 and not a.attisdropped
       and pg_catalog.has_column_privilege(role, a.attrelid, a.attnum, 'SELECT')),
    '{}');
  f record;
  type_oid oid;
  expression text;
  held boolean;
begin
  for f in select * from unnest(columns, ops, filter_values, negates) as u(name, op, value, negate) loop
    if not f.name = any(names) then
      raise exception 'invalid column for filter %', f.name;
    end if;
    type_oid := (select a.atttypid from pg_catalog.pg_attribute a where a.attrelid = relation and a.attname = f.name);
    if f.op = 'in' then
      if coalesce(jsonb_array_length(
           _gateway.realtime_cast(f.value, (select t.typarray from pg_catalog.pg_type t where t.oid = type_oid))), 0) > 100
      then
        raise exception 'too many values for `in` filter. Maximum 100';
      end if;
    elsif f.op = 'is' then
      if f.value not in ('null', 'true', 'false', 'unknown') then
        raise exception 'invalid value for is filter: must be null, true, false, or unknown';
      end if;
      if f.value <> 'null' and type_oid <> 'boolean'::regtype then
        raise exception 'is % filter requires a boolean column, got %', f.value, type_oid::regtype::text;
      end if;
    else
      if f.op in ('match', 'imatch') then
        begin
          perform '' ~ f.value;
        exception when others then
          raise exception 'invalid regular expression for % filter: %', f.op, sqlerrm;
        end;
      elsif f.op not in ('like', 'ilike') then
        perform _gateway.realtime_cast(f.value, type_oid);
      end if;
      -- The operator must apply to the type: tried on the value itself, the
      -- very comparison the feed makes later.
      expression := _gateway.realtime_filter_sql(f.op, f.negate, type_oid);
      begin
        execute format('select %s from (select $1::text as v, $1::text as f) as u', expression) using f.value into held;
      exception when others then
        raise exception 'operator % is not supported on column % of type %: %',
          f.op, f.name, type_oid::regtype::text, sqlerrm;
      end;
    end if;
  end loop;
  for f in select * from unnest(selected) as u(name) loop
    if not f.name = any(names) then
      raise exception 'invalid column for select %', f.name;
    end if;
  end loop;
end
$$;

revoke all on function _gateway.realtime_filter_sql(text, boolean, oid),
  _gateway.realtime_filters_hold(text[], boolean[], oid[], text[], text[]),
  _gateway.realtime_check_binding(regclass, text, text[], text[], text[], boolean[], text[]) from public;
grant execute on function _gateway.realtime_filter_sql(text, boolean, oid),
  _gateway.realtime_filters_hold(text[], boolean[], oid[], text[], text[]),
  _gateway.realtime_check_binding(regclass, text, text[], text[], text[], boolean[], text[]) to authenticator;
