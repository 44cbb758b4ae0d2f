//! S3 access keys (`sql/023_storage_s3.sql`): made, listed and revoked
//! by `gateway storage s3-keys`, looked up by every signed request.
//!
//! An access key id is 32 hex digits and its secret 64, as the keys
//! Supabase's dashboard shows. The secret is sealed under the JWT secret
//! (`gateway_core::keys::seal`, purpose [`Sealed::S3SecretKey`]) rather
//! than under a key file of its own in the data directory: every gateway on
//! one database already shares the JWT secret, so each can check any key's
//! signatures, and a deployment without a data directory (an external
//! database) needs nothing more.

use gateway_core::config::Secret;
use gateway_core::db::Session;
use gateway_core::error::ApiError;
use gateway_core::keys::{self, BoxError, Sealed};
use tokio_postgres::GenericClient;
use uuid::Uuid;

/// A key pair as `create` prints it, the only time the secret is shown.
pub struct Created {
    pub access_key_id: String,
    pub secret_access_key: String,
}

/// One key as `list` shows it: never its secret.
pub struct Listed {
    pub access_key_id: String,
    pub description: String,
    pub created_at: String,
}

fn random_hex() -> String {
    // A v4 UUID holds 122 random bits from the system's generator.
    Uuid::new_v4().simple().to_string()
}

pub async fn create(
    client: &impl GenericClient,
    jwt_secret: &Secret,
    description: &str,
) -> Result<Created, BoxError> {
    let access_key_id = random_hex();
    let secret_access_key = format!("{}{}", random_hex(), random_hex());
    let sealed = keys::seal(jwt_secret, Sealed::S3SecretKey, &access_key_id, secret_access_key.as_bytes())?;
    client
        .execute(
            "insert into storage.s3_access_keys (access_key_id, sealed_secret, description) values ($1, $2, $3)",
            &[&access_key_id, &sealed, &description],
        )
        .await?;
    Ok(Created { access_key_id, secret_access_key })
}

pub async fn list(client: &impl GenericClient) -> Result<Vec<Listed>, BoxError> {
    let rows = client
        .query(
            "select access_key_id, description, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') \
             from storage.s3_access_keys order by created_at, access_key_id",
            &[],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|row| Listed { access_key_id: row.get(0), description: row.get(1), created_at: row.get(2) })
        .collect())
}

/// Whether there was such a key.
pub async fn revoke(client: &impl GenericClient, access_key_id: &str) -> Result<bool, BoxError> {
    let deleted = client
        .execute("delete from storage.s3_access_keys where access_key_id = $1", &[&access_key_id])
        .await?;
    Ok(deleted > 0)
}

/// The secret of `access_key_id`, if there is such a key and it opens under
/// this JWT secret. `session` runs as service_role: this is the gateway's
/// own bookkeeping, before anyone is known to act.
pub async fn secret_of(
    session: Session,
    jwt_secret: &Secret,
    access_key_id: &str,
) -> Result<Option<String>, ApiError> {
    let rows = session
        .query_and_end(
            "select sealed_secret from storage.s3_access_keys where access_key_id = $1",
            &[&access_key_id],
            true,
        )
        .await?;
    let Some(sealed) = rows.first().map(|row| row.get::<_, String>(0)) else {
        return Ok(None);
    };
    let plain = keys::unseal(jwt_secret, Sealed::S3SecretKey, access_key_id, &sealed);
    if plain.is_none() {
        tracing::error!(access_key_id, "an S3 access key does not open under this JWT secret");
    }
    Ok(plain.and_then(|bytes| String::from_utf8(bytes).ok()))
}
