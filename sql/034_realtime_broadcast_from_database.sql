-- Broadcast from the database
-- (https://supabase.com/docs/guides/realtime/broadcast#broadcast-from-the-database):
-- `realtime.send` and the trigger helper `realtime.broadcast_changes`, with
-- the signatures and payload shape of supabase/realtime's migrations, insert
-- a row of extension `broadcast` into realtime.messages.
--
-- Delivery: Supabase Realtime reads these rows from the WAL. Here an insert
-- trigger hands the row to the gateways' bus (NOTIFY `gateway_realtime`,
-- gateway/crates/realtime/src/bus.rs) at commit, the same path and latency
-- as a broadcast from a client, without waiting for the change feed's
-- polling reader; a rolled-back transaction (such as an authorization
-- check's) notifies nobody. The origin `database` is no gateway's, so every
-- gateway delivers it to its own members of the topic.

create or replace function realtime.send(payload jsonb, event text, topic text, private boolean default true)
returns void
language plpgsql volatile
as $$
begin
  begin
    -- The topic is set for the insert's RLS policies, as for a join check.
    perform pg_catalog.set_config('realtime.topic', topic, true);
    insert into realtime.messages (payload, event, topic, private, extension)
    values (payload, event, topic, private, 'broadcast');
  exception when others then
    -- Realtime only warns: a failed broadcast must not undo the caller's
    -- transaction.
    raise warning 'ErrorSendingBroadcastMessage: %', sqlerrm;
  end;
end
$$;

grant execute on function realtime.send(jsonb, text, text, boolean) to anon, authenticated, service_role;

-- The trigger helper: `record`/`old_record` are the rows as to_jsonb gives
-- them, NULL where the operation has none.
create or replace function realtime.broadcast_changes(
  topic_name text, event_name text, operation text, table_name text, table_schema text,
  new record, old record, level text default 'ROW'
) returns void
language plpgsql volatile
as $$
begin
  if level = 'STATEMENT' then
    raise exception 'function can only be triggered for each row, not for each statement';
  end if;
  if operation not in ('INSERT', 'UPDATE', 'DELETE') then
    raise exception 'Unexpected operation type: %', operation;
  end if;
  perform realtime.send(
    jsonb_build_object(
      'old_record', case when old is null then null else to_jsonb(old) end,
      'record', case when new is null then null else to_jsonb(new) end,
      'operation', operation, 'table', table_name, 'schema', table_schema),
    event_name, topic_name);
end
$$;

grant execute on function realtime.broadcast_changes(text, text, text, text, text, record, record, text)
  to anon, authenticated, service_role;

-- Hands an inserted broadcast to the bus, in the bus's own envelope
-- (`encode` in bus.rs): a message over NOTIFY's 8,000 bytes goes through
-- realtime.bus_spill as the gateways' own do. The message carries the row's
-- id in `meta`, as Realtime's do, so that a client can tell a replayed
-- message from a live one.
create or replace function realtime.messages_to_bus() returns trigger
language plpgsql security definer
set search_path = ''
as $$
declare
  body text;
begin
  body := jsonb_build_object(
    'o', 'database', 'k', 'b', 'e', 'broadcast',
    't', 'realtime:' || new.topic, 'p', coalesce(new.private, false),
    'j', jsonb_build_object(
      'type', 'broadcast', 'event', new.event,
      'payload', coalesce(new.payload, '{}'::jsonb),
      'meta', jsonb_build_object('id', new.id))
  )::text;
  if octet_length(body) > 7000 then
    body := jsonb_build_object('o', 'database', 'spill', realtime.bus_spill(body))::text;
  end if;
  perform pg_catalog.pg_notify('gateway_realtime', body);
  return null;
end
$$;

revoke all on function realtime.messages_to_bus() from public;

create trigger messages_to_bus
after insert on realtime.messages
for each row when (new.extension = 'broadcast' and new.payload is not null)
execute function realtime.messages_to_bus();
