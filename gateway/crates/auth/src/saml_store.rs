//! The statements of SAML single sign-on, on GoTrue's `auth.sso_providers`,
//! `auth.saml_providers`, `auth.sso_domains`, `auth.saml_relay_states`
//! (`sql/056_auth_saml.sql`), as fixed SQL with bound parameters run as
//! service_role, like `store` and `external`.

use std::net::IpAddr;

use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use tokio_postgres::Row;
use uuid::Uuid;

use crate::saml::AttributeMapping;
use crate::store::{self, SignIn, Started};
use gateway_core::db::{Access, Db, Session};
use gateway_core::error::ApiError;

/// The authentication method GoTrue records for SAML (`models.SSOSAML`),
/// in `amr` and on the flow.
pub const METHOD: &str = "sso/saml";

/// A provider as the admin API shows it and the flows use it.
#[derive(Debug, Clone)]
pub struct Provider {
    pub id: Uuid,
    pub resource_id: Option<String>,
    pub disabled: Option<bool>,
    pub entity_id: String,
    pub metadata_xml: String,
    pub metadata_url: Option<String>,
    pub attribute_mapping: AttributeMapping,
    pub name_id_format: Option<String>,
    pub domains: Vec<String>,
    pub created_at: Option<DateTime<Utc>>,
    pub updated_at: Option<DateTime<Utc>>,
}

impl Provider {
    pub fn enabled(&self) -> bool {
        self.disabled != Some(true)
    }

    /// The identity provider name users of this provider get (`sso:<id>`).
    pub fn identity_provider(&self) -> String {
        format!("sso:{}", self.id)
    }

    /// GoTrue's JSON of `models.SSOProvider`; lists leave out the metadata
    /// XML "so that the returned JSON is not ginormous".
    pub fn to_json(&self, with_xml: bool) -> Value {
        let mut saml = json!({ "entity_id": self.entity_id, "attribute_mapping": self.attribute_mapping });
        if with_xml {
            saml["metadata_xml"] = json!(self.metadata_xml);
        }
        if let Some(url) = &self.metadata_url {
            saml["metadata_url"] = json!(url);
        }
        if let Some(format) = &self.name_id_format {
            saml["name_id_format"] = json!(format);
        }
        let domains: Vec<Value> = self.domains.iter().map(|d| json!({ "domain": d })).collect();
        let mut provider = json!({
            "id": self.id,
            "disabled": self.disabled,
            "saml": saml,
            "domains": domains,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        });
        if let Some(resource_id) = &self.resource_id {
            provider["resource_id"] = json!(resource_id);
        }
        provider
    }
}

const SELECT: &str = "select p.id, p.resource_id, p.disabled, s.entity_id, s.metadata_xml, s.metadata_url, \
      coalesce(s.attribute_mapping, '{}'::jsonb), s.name_id_format, \
      array(select d.domain from auth.sso_domains d where d.sso_provider_id = p.id order by d.created_at, d.domain), \
      p.created_at, p.updated_at \
    from auth.sso_providers p join auth.saml_providers s on s.sso_provider_id = p.id";

fn provider(row: &Row) -> Provider {
    let mapping: Value = row.get(6);
    Provider {
        id: row.get(0),
        resource_id: row.get(1),
        disabled: row.get(2),
        entity_id: row.get(3),
        metadata_xml: row.get(4),
        metadata_url: row.get(5),
        attribute_mapping: serde_json::from_value(mapping).unwrap_or_default(),
        name_id_format: row.get(7),
        domains: row.get(8),
        created_at: row.get(9),
        updated_at: row.get(10),
    }
}

/// How a provider is looked for.
pub enum Find<'a> {
    Id(Uuid),
    ResourceId(&'a str),
    Domain(&'a str),
    EntityId(&'a str),
}

pub async fn find(db: &Db, by: Find<'_>) -> Result<Option<Provider>, ApiError> {
    let mut session = db.as_service_role(Access::ReadOnly).await?;
    let rows = match by {
        Find::Id(id) => session.query(&format!("{SELECT} where p.id = $1"), &[&id]).await?,
        Find::ResourceId(r) => session.query(&format!("{SELECT} where p.resource_id = $1"), &[&r]).await?,
        Find::EntityId(e) => session.query(&format!("{SELECT} where s.entity_id = $1"), &[&e]).await?,
        Find::Domain(d) => {
            let sql = format!(
                "{SELECT} where p.id = (select sso_provider_id from auth.sso_domains where lower(domain) = lower($1))"
            );
            session.query(&sql, &[&d]).await?
        }
    };
    session.commit().await?;
    Ok(rows.first().map(provider))
}

/// `GET /admin/sso/providers?resource_id=|resource_id_prefix=`.
pub async fn list(
    db: &Db,
    resource_id: Option<&str>,
    resource_id_prefix: Option<&str>,
) -> Result<Vec<Provider>, ApiError> {
    let mut session = db.as_service_role(Access::ReadOnly).await?;
    let rows = match (resource_id, resource_id_prefix) {
        (Some(r), _) => {
            session.query(&format!("{SELECT} where p.resource_id = $1 order by p.created_at"), &[&r]).await?
        }
        (None, Some(prefix)) => {
            // `like` on a prefix the caller gives: its own wildcards are escaped.
            let pattern =
                format!("{}%", prefix.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_"));
            let sql = format!("{SELECT} where p.resource_id like $1 order by p.created_at");
            session.query(&sql, &[&pattern]).await?
        }
        (None, None) => session.query(&format!("{SELECT} order by p.created_at"), &[]).await?,
    };
    session.commit().await?;
    Ok(rows.iter().map(provider).collect())
}

/// What creating or updating a provider writes.
pub struct Write<'a> {
    pub resource_id: Option<&'a str>,
    pub disabled: Option<bool>,
    pub entity_id: &'a str,
    pub metadata_xml: &'a str,
    pub metadata_url: Option<&'a str>,
    pub attribute_mapping: &'a AttributeMapping,
    pub name_id_format: Option<&'a str>,
    pub domains: &'a [String],
}

fn mapping_json(mapping: &AttributeMapping) -> Result<Value, ApiError> {
    serde_json::to_value(mapping).map_err(ApiError::internal)
}

pub async fn create(db: &Db, write: &Write<'_>) -> Result<Uuid, ApiError> {
    const PROVIDER: &str = "insert into auth.sso_providers (id, resource_id, disabled, created_at, updated_at) \
        values ($1, $2, $3, now(), now())";
    const SAML: &str = "insert into auth.saml_providers (id, sso_provider_id, entity_id, metadata_xml, \
          metadata_url, attribute_mapping, name_id_format, created_at, updated_at) \
        values ($1, $2, $3, $4, $5, $6, $7, now(), now())";
    let id = Uuid::new_v4();
    let mapping = mapping_json(write.attribute_mapping)?;
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    session.query(PROVIDER, &[&id, &write.resource_id, &write.disabled]).await?;
    session
        .query(
            SAML,
            &[
                &Uuid::new_v4(),
                &id,
                &write.entity_id,
                &write.metadata_xml,
                &write.metadata_url,
                &mapping,
                &write.name_id_format,
            ],
        )
        .await?;
    set_domains(&mut session, id, write.domains).await?;
    session.commit().await?;
    Ok(id)
}

async fn set_domains(session: &mut Session, id: Uuid, domains: &[String]) -> Result<(), ApiError> {
    const DELETE: &str = "delete from auth.sso_domains where sso_provider_id = $1 and not (domain = any($2))";
    const INSERT: &str = "insert into auth.sso_domains (id, sso_provider_id, domain, created_at, updated_at) \
        select gen_random_uuid(), $1, d, now(), now() from unnest($2::text[]) d \
        where not exists (select 1 from auth.sso_domains where sso_provider_id = $1 and domain = d)";
    session.query(DELETE, &[&id, &domains]).await?;
    session.query(INSERT, &[&id, &domains]).await?;
    Ok(())
}

/// Rewrites a provider; `domains` only when given.
pub async fn update(db: &Db, id: Uuid, write: &Write<'_>, domains: bool) -> Result<(), ApiError> {
    const PROVIDER: &str =
        "update auth.sso_providers set resource_id = $2, disabled = $3, updated_at = now() where id = $1";
    const SAML: &str = "update auth.saml_providers set metadata_xml = $2, metadata_url = $3, \
          attribute_mapping = $4, name_id_format = $5, updated_at = now() where sso_provider_id = $1";
    let mapping = mapping_json(write.attribute_mapping)?;
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    session.query(PROVIDER, &[&id, &write.resource_id, &write.disabled]).await?;
    session
        .query(SAML, &[&id, &write.metadata_xml, &write.metadata_url, &mapping, &write.name_id_format])
        .await?;
    if domains {
        set_domains(&mut session, id, write.domains).await?;
    }
    session.commit().await
}

pub async fn delete(db: &Db, id: Uuid) -> Result<(), ApiError> {
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    session.query("delete from auth.sso_providers where id = $1", &[&id]).await?;
    session.commit().await
}

/// A sign-in starting at `POST /sso`: its relay state and, for PKCE, its
/// flow (with the auth code it will end in).
pub struct NewRelayState<'a> {
    /// The RelayState sent to the identity provider.
    pub id: Uuid,
    pub provider_id: Uuid,
    pub request_id: &'a str,
    pub redirect_to: &'a str,
    pub pkce: Option<(&'a str, &'a str)>,
}

pub async fn create_relay_state(db: &Db, state: &NewRelayState<'_>) -> Result<(), ApiError> {
    // Relay states nobody used are useless after their minutes; each new
    // one clears a few of those a day old, as flows do (`external`).
    const FLOW: &str = "insert into auth.flow_state (id, auth_code, code_challenge_method, code_challenge, \
          provider_type, created_at, updated_at, authentication_method, referrer) \
        values ($1, $2, $3::text::auth.code_challenge_method, $4, $5, now(), now(), $5, $6)";
    const RELAY: &str = "\
        with stale as (delete from auth.saml_relay_states where id in ( \
          select id from auth.saml_relay_states where created_at < now() - interval '24 hours' limit 100)) \
        insert into auth.saml_relay_states (id, sso_provider_id, request_id, redirect_to, created_at, \
          updated_at, flow_state_id) values ($1, $2, $3, $4, now(), now(), $5)";
    let id = state.id;
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    let flow = match state.pkce {
        Some((challenge, method)) => {
            let flow = Uuid::new_v4();
            // GoTrue's auth codes are UUIDs (122 random bits), good for one exchange.
            let code = Uuid::new_v4().to_string();
            session.query(FLOW, &[&flow, &code, &method, &challenge, &METHOD, &state.redirect_to]).await?;
            Some(flow)
        }
        None => None,
    };
    session.query(RELAY, &[&id, &state.provider_id, &state.request_id, &state.redirect_to, &flow]).await?;
    session.commit().await
}

/// A relay state, taken: it is deleted as it is read, so it works once.
pub struct RelayState {
    pub provider_id: Uuid,
    pub request_id: String,
    pub redirect_to: Option<String>,
    pub flow_state_id: Option<Uuid>,
    pub expired: bool,
}

pub async fn take_relay_state(db: &Db, id: Uuid, validity_secs: u64) -> Result<Option<RelayState>, ApiError> {
    const TAKE: &str = "delete from auth.saml_relay_states where id = $1 \
        returning sso_provider_id, request_id, redirect_to, flow_state_id, \
          created_at < now() - make_interval(secs => $2)";
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    let rows = session.query(TAKE, &[&id, &(validity_secs as f64)]).await?;
    session.commit().await?;
    Ok(rows.first().map(|row| RelayState {
        provider_id: row.get(0),
        request_id: row.get(1),
        redirect_to: row.get(2),
        flow_state_id: row.get(3),
        expired: row.get(4),
    }))
}

/// Records an accepted assertion's ID until `expires_at`; false when it was
/// accepted before (a replay).
pub async fn first_use(
    db: &Db,
    provider_id: Uuid,
    assertion_id: &str,
    expires_at: DateTime<Utc>,
) -> Result<bool, ApiError> {
    const CLEAN: &str = "delete from auth.saml_assertions where ctid in ( \
        select ctid from auth.saml_assertions where expires_at < now() limit 100)";
    const RECORD: &str = "insert into auth.saml_assertions (sso_provider_id, assertion_id, expires_at) \
        values ($1, $2, $3) on conflict do nothing returning 1";
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    session.query(CLEAN, &[]).await?;
    let rows = session.query(RECORD, &[&provider_id, &assertion_id, &expires_at]).await?;
    session.commit().await?;
    Ok(!rows.is_empty())
}

/// What the assertion says about the user.
pub struct SsoUser<'a> {
    pub provider: &'a str,
    pub subject: &'a str,
    pub email: &'a str,
    pub identity_data: &'a Value,
}

/// How the assertion ends.
pub enum Finish {
    /// PKCE: the flow's auth code.
    Code(String),
    /// Implicit: the session started.
    Session(Box<Started>),
    Banned,
    SignupDisabled,
    /// The flow had a user already.
    FlowUsed,
}

/// GoTrue's account decision for SSO identities (`models.DetermineAccountLinking`
/// with an `sso:` provider): the identity's user, its data renewed; else a
/// new SSO user (`is_sso_user`, whose e-mail need not be unique), confirmed,
/// unless sign-ups are off. Then, in the same transaction, the PKCE flow
/// gets the user (`Code`) or a session starts (`Session`).
pub async fn sign_in(
    db: &Db,
    user: &SsoUser<'_>,
    signup_enabled: bool,
    flow: Option<Uuid>,
    token_digest: &str,
    user_agent: Option<&str>,
    ip: Option<IpAddr>,
) -> Result<Finish, ApiError> {
    const IDENTITY: &str = "update auth.identities set identity_data = $3, updated_at = now() \
        where provider = $1 and provider_id = $2 returning user_id";
    const CREATE: &str = "\
        with u as ( \
          insert into auth.users (instance_id, id, aud, role, email, email_confirmed_at, raw_app_meta_data, \
            raw_user_meta_data, created_at, updated_at, is_sso_user, is_anonymous, \
            confirmation_token, recovery_token, email_change_token_new, email_change) \
          values ('00000000-0000-0000-0000-000000000000', $1, 'authenticated', 'authenticated', $2, now(), \
            $3, $4, now(), now(), true, false, '', '', '', '') \
          returning id) \
        insert into auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at) \
        select $5, id, $4, $6, now(), now() from u";
    const BANNED: &str = "select coalesce(banned_until > now(), false) from auth.users where id = $1";
    const FLOW: &str = "update auth.flow_state set user_id = $2, auth_code_issued_at = now(), updated_at = now() \
        where id = $1 and user_id is null returning auth_code";
    let mut session = db.as_service_role(Access::ReadWrite).await?;
    let email = user.email.to_lowercase();
    let rows = session.query(IDENTITY, &[&user.provider, &user.subject, user.identity_data]).await?;
    let user_id = match rows.first() {
        Some(row) => row.get::<_, Uuid>(0),
        None if !signup_enabled => {
            session.rollback().await?;
            return Ok(Finish::SignupDisabled);
        }
        None => {
            let id = Uuid::new_v4();
            let app_metadata = json!({ "provider": user.provider, "providers": [user.provider] });
            session
                .query(
                    CREATE,
                    &[&id, &email, &app_metadata, user.identity_data, &user.subject, &user.provider],
                )
                .await?;
            id
        }
    };
    let banned = session.query(BANNED, &[&user_id]).await?.first().is_some_and(|r| r.get::<_, bool>(0));
    if banned {
        session.rollback().await?;
        return Ok(Finish::Banned);
    }
    let finish = match flow {
        Some(flow) => match session.query(FLOW, &[&flow, &user_id]).await?.first() {
            Some(row) => Finish::Code(row.get(0)),
            None => {
                session.rollback().await?;
                return Ok(Finish::FlowUsed);
            }
        },
        None => {
            let sign_in = SignIn { provider: user.provider, method: METHOD };
            let started =
                store::start_session_in(&mut session, user_id, sign_in, token_digest, user_agent, ip).await?;
            Finish::Session(Box::new(started))
        }
    };
    session.commit().await?;
    Ok(finish)
}
