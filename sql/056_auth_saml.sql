-- SAML 2.0 single sign-on, in GoTrue's tables (supabase/auth migrations
-- 20221021082433_add_saml, 20230508135423_add_cleanup_indexes,
-- 20230818113222_add_flow_state_to_relay_state,
-- 20240115144230_remove_ip_address_from_saml_relay_state,
-- 20240314092811_add_saml_name_id_format,
-- 20250717082212_add_disabled_to_sso_providers), so that a dump of a hosted
-- project's providers loads as it is. GoTrue's `sso_sessions` was dropped
-- upstream (20221215195900) and is not made.
--
-- One table of our own: auth.saml_assertions keeps the ID of every
-- assertion the gateway accepted until it expires, so that an assertion
-- captured on its way to the ACS cannot be posted again (GoTrue relies on
-- the single-use relay state alone).

create table if not exists auth.sso_providers (
  id uuid not null primary key,
  resource_id text null,
  created_at timestamptz null,
  updated_at timestamptz null,
  disabled boolean null,
  constraint "resource_id not empty" check (resource_id = null or char_length(resource_id) > 0)
);
comment on table auth.sso_providers is 'Auth: Manages SSO identity provider information; see saml_providers for SAML.';
comment on column auth.sso_providers.resource_id is 'Auth: Uniquely identifies a SSO provider according to a user-chosen resource ID (case insensitive), useful in infrastructure as code.';
create unique index if not exists sso_providers_resource_id_idx on auth.sso_providers (lower(resource_id));
create index if not exists sso_providers_resource_id_pattern_idx on auth.sso_providers (resource_id text_pattern_ops);

create table if not exists auth.sso_domains (
  id uuid not null primary key,
  sso_provider_id uuid not null references auth.sso_providers (id) on delete cascade,
  domain text not null,
  created_at timestamptz null,
  updated_at timestamptz null,
  constraint "domain not empty" check (char_length(domain) > 0)
);
create index if not exists sso_domains_sso_provider_id_idx on auth.sso_domains (sso_provider_id);
create unique index if not exists sso_domains_domain_idx on auth.sso_domains (lower(domain));
comment on table auth.sso_domains is 'Auth: Manages SSO email address domain mapping to an SSO Identity Provider.';

create table if not exists auth.saml_providers (
  id uuid not null primary key,
  sso_provider_id uuid not null references auth.sso_providers (id) on delete cascade,
  entity_id text not null unique,
  metadata_xml text not null,
  metadata_url text null,
  attribute_mapping jsonb null,
  created_at timestamptz null,
  updated_at timestamptz null,
  name_id_format text null,
  constraint "metadata_xml not empty" check (char_length(metadata_xml) > 0),
  constraint "metadata_url not empty" check (metadata_url = null or char_length(metadata_url) > 0),
  constraint "entity_id not empty" check (char_length(entity_id) > 0)
);
create index if not exists saml_providers_sso_provider_id_idx on auth.saml_providers (sso_provider_id);
comment on table auth.saml_providers is 'Auth: Manages SAML Identity Provider connections.';

create table if not exists auth.saml_relay_states (
  id uuid not null primary key,
  sso_provider_id uuid not null references auth.sso_providers (id) on delete cascade,
  request_id text not null,
  for_email text null,
  redirect_to text null,
  created_at timestamptz null,
  updated_at timestamptz null,
  flow_state_id uuid references auth.flow_state (id) on delete cascade default null,
  constraint "request_id not empty" check (char_length(request_id) > 0)
);
create index if not exists saml_relay_states_sso_provider_id_idx on auth.saml_relay_states (sso_provider_id);
create index if not exists saml_relay_states_for_email_idx on auth.saml_relay_states (for_email);
create index if not exists saml_relay_states_created_at_idx on auth.saml_relay_states (created_at desc);
comment on table auth.saml_relay_states is 'Auth: Contains SAML Relay State information for each Service Provider initiated login.';

create table if not exists auth.saml_assertions (
  sso_provider_id uuid not null references auth.sso_providers (id) on delete cascade,
  assertion_id text not null,
  expires_at timestamptz not null,
  primary key (sso_provider_id, assertion_id)
);
create index if not exists saml_assertions_expires_at_idx on auth.saml_assertions (expires_at);
comment on table auth.saml_assertions is 'Gateway: IDs of accepted SAML assertions, kept until they expire, so none is accepted twice.';

-- Only the auth service, as service_role, reads and writes these.
grant select, insert, update, delete on auth.sso_providers, auth.sso_domains, auth.saml_providers,
  auth.saml_relay_states, auth.saml_assertions to service_role;
