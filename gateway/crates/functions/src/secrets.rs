//! Operator secrets, as `supabase secrets set` keeps them for a project's
//! functions (<https://supabase.com/docs/guides/functions/secrets>): set with
//! `gateway functions secrets set NAME=VALUE`, read by every function as a
//! variable. They live in `supabase_functions.gateway_secrets`
//! (`sql/040_functions_secrets.sql`), each value sealed under the JWT secret
//! and bound to its name ([`gateway_core::keys::seal`]), so that every
//! gateway on the database hands out the same ones and a dump of it alone
//! reveals none. Values are never logged; `list` shows a digest, as the
//! Supabase CLI does.
//!
//! The row `SUPABASE_SECRET_KEYS` is the gateway's own: the secret API key it
//! made for its functions, which they read under Supabase's name. The
//! gateway keeps only the digests of the secret keys it hands out elsewhere,
//! so this one is kept sealed to be handed out again.

use gateway_core::caller::Credentials;
use gateway_core::config::Secret;
use gateway_core::db::{Access, Db};
use gateway_core::keys::{self, KeyKind, Sealed};
use sha2::{Digest, Sha256};
use tokio_postgres::GenericClient;

pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The variable that holds the secret key made for the functions.
const SECRET_KEYS: &str = "SUPABASE_SECRET_KEYS";
/// The name of that key among the API keys (`gateway keys list`).
const SECRET_KEY_NAME: &str = "edge-functions";

/// A name a secret may have: a variable's name, not one of Supabase's own
/// (the CLI refuses `SUPABASE_` names, which the platform sets).
pub fn check_name(name: &str) -> Result<(), String> {
    let mut chars = name.chars();
    let variable = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !variable {
        return Err(format!("{name:?} is not a variable name (a letter or _, then letters, digits and _)"));
    }
    if name.to_ascii_uppercase().starts_with("SUPABASE_") {
        return Err(format!(
            "{name}: names starting with SUPABASE_ are reserved for the variables the gateway sets"
        ));
    }
    Ok(())
}

/// `NAME=VALUE`, as the command line and an env file give it.
pub fn parse_assignment(text: &str) -> Result<(String, String), String> {
    let (name, value) =
        text.split_once('=').ok_or_else(|| "expected NAME=VALUE (the value is not shown here)".to_owned())?;
    let name = name.trim();
    check_name(name)?;
    Ok((name.to_owned(), value.to_owned()))
}

/// The assignments of an env file: `NAME=VALUE` lines, `#` comments, blank
/// lines, an optional `export `, and values in single or double quotes.
pub fn parse_env_file(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.strip_prefix("export ").unwrap_or(line);
        let (name, value) = parse_assignment(line).map_err(|e| format!("line {}: {e}", number + 1))?;
        let value = value.trim();
        let unquoted = [('"', '"'), ('\'', '\'')]
            .iter()
            .find_map(|(open, close)| value.strip_prefix(*open)?.strip_suffix(*close))
            .unwrap_or(value);
        out.push((name, unquoted.to_owned()));
    }
    Ok(out)
}

/// Sets (or replaces) a secret.
pub async fn set(
    client: &impl GenericClient,
    secret: &Secret,
    name: &str,
    value: &str,
) -> Result<(), BoxError> {
    check_name(name)?;
    let sealed = keys::seal(secret, Sealed::FunctionSecret, name, value.as_bytes())?;
    client
        .execute(
            "insert into supabase_functions.gateway_secrets (name, sealed_value) values ($1, $2)
             on conflict (name) do update set sealed_value = excluded.sealed_value, updated_at = now()",
            &[&name, &sealed],
        )
        .await?;
    Ok(())
}

/// One secret as `list` shows it: its name, the SHA-256 of its value (so
/// that two values can be compared without being shown) and when it was set.
pub struct Listed {
    pub name: String,
    pub digest: String,
    pub updated_at: String,
}

/// The operator's secrets, by name.
pub async fn list(client: &impl GenericClient, secret: &Secret) -> Result<Vec<Listed>, BoxError> {
    let rows = client
        .query(
            "select name, sealed_value, to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')
             from supabase_functions.gateway_secrets where name not like 'SUPABASE\\_%' order by name",
            &[],
        )
        .await?;
    rows.iter()
        .map(|row| {
            let name: String = row.get(0);
            let value = open(secret, &name, row.get(1))?;
            Ok(Listed { digest: hex::encode(Sha256::digest(&value)), name, updated_at: row.get(2) })
        })
        .collect()
}

/// Removes a secret; false when there was none of that name.
pub async fn unset(client: &impl GenericClient, name: &str) -> Result<bool, BoxError> {
    check_name(name)?;
    let removed =
        client.execute("delete from supabase_functions.gateway_secrets where name = $1", &[&name]).await?;
    Ok(removed > 0)
}

fn open(secret: &Secret, name: &str, sealed: &str) -> Result<Vec<u8>, BoxError> {
    keys::unseal(secret, Sealed::FunctionSecret, name, sealed).ok_or_else(|| {
        format!(
            "cannot open the function secret {name}: it was sealed under another JWT secret (every gateway \
             on one database needs the same --jwt-secret; set it again with `gateway functions secrets set`)"
        )
        .into()
    })
}

/// A fingerprint of the secrets as they are now: it changes when one is set
/// or unset, so that running functions can be restarted with the new ones.
pub async fn version(db: &Db) -> Result<String, BoxError> {
    let session = db.as_service_role(Access::ReadOnly).await?;
    let rows = session
        .query_and_end(
            "select coalesce(string_agg(name || '@' || updated_at::text, ',' order by name), '')
             from supabase_functions.gateway_secrets",
            &[],
            false,
        )
        .await?;
    Ok(rows.first().map(|row| row.get(0)).unwrap_or_default())
}

/// The variables a function gets from the database: the operator's secrets
/// and `SUPABASE_SECRET_KEYS`, the latter made on first need (and again
/// after its key was revoked). A secret that cannot be opened is left out
/// and logged by name.
pub async fn environment(db: &Db, credentials: &Credentials) -> Result<Vec<(String, String)>, BoxError> {
    let secret = credentials.jwt.secret();
    let session = db.as_service_role(Access::ReadOnly).await?;
    let rows = session
        .query_and_end("select name, sealed_value from supabase_functions.gateway_secrets", &[], false)
        .await?;
    let mut env = Vec::new();
    let mut secret_keys = None;
    for row in &rows {
        let name: String = row.get(0);
        let Some(value) = keys::unseal(secret, Sealed::FunctionSecret, &name, row.get(1)) else {
            tracing::error!(secret = %name, "a function secret was sealed under another JWT secret; left out");
            continue;
        };
        let value = String::from_utf8_lossy(&value).into_owned();
        if name == SECRET_KEYS {
            secret_keys = Some(value);
        } else {
            env.push((name, value));
        }
    }
    let in_use = secret_keys
        .as_deref()
        .and_then(default_key)
        .is_some_and(|key| credentials.api_keys.lookup(&key) == Some(KeyKind::Secret));
    let secret_keys = match (in_use, secret_keys) {
        (true, Some(keys)) => keys,
        _ => make_secret_key(db, credentials).await?,
    };
    env.push((SECRET_KEYS.to_owned(), secret_keys));
    Ok(env)
}

fn default_key(json: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(json).ok()?;
    value.get("default")?.as_str().map(str::to_owned)
}

/// Makes the secret key the functions read, keeps it sealed, and has this
/// gateway's keys know it at once (the others within
/// `--keys-refresh-interval`). Gateways doing it together take turns; the
/// second one finds the first one's key.
async fn make_secret_key(db: &Db, credentials: &Credentials) -> Result<String, BoxError> {
    let secret = credentials.jwt.secret();
    let mut client = keys::connect(db.pg_config()).await?;
    let tx = client.transaction().await?;
    tx.execute("select pg_advisory_xact_lock(hashtext('gateway function secret key'))", &[]).await?;
    let kept = tx
        .query_opt(
            "select sealed_value from supabase_functions.gateway_secrets where name = $1",
            &[&SECRET_KEYS],
        )
        .await?
        .and_then(|row| keys::unseal(secret, Sealed::FunctionSecret, SECRET_KEYS, row.get(0)))
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned());
    let valid: Option<String> = match kept.as_deref().and_then(default_key) {
        Some(key) => {
            let hash = hex::encode(Sha256::digest(key.as_bytes()));
            let row = tx
                .query_opt(
                    "select 1 from auth.gateway_api_keys where key_hash = $1 and kind = 'secret' and revoked_at is null",
                    &[&hash],
                )
                .await?;
            row.and(kept)
        }
        None => None,
    };
    let json = match valid {
        Some(json) => json,
        None => {
            let key = keys::insert_api_key(&tx, SECRET_KEY_NAME, KeyKind::Secret).await?;
            let json = serde_json::json!({"default": key}).to_string();
            let sealed = keys::seal(secret, Sealed::FunctionSecret, SECRET_KEYS, json.as_bytes())?;
            tx.execute(
                "insert into supabase_functions.gateway_secrets (name, sealed_value) values ($1, $2)
                 on conflict (name) do update set sealed_value = excluded.sealed_value, updated_at = now()",
                &[&SECRET_KEYS, &sealed],
            )
            .await?;
            tracing::info!(
                key = SECRET_KEY_NAME,
                "made the secret API key Edge Functions read as SUPABASE_SECRET_KEYS"
            );
            json
        }
    };
    tx.commit().await?;
    keys::load(&client, credentials, &mut None).await?;
    Ok(json)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_variables_and_not_supabases() {
        for (name, valid) in [
            ("STRIPE_KEY", true),
            ("_private", true),
            ("a1", true),
            ("1a", false),
            ("", false),
            ("WITH-DASH", false),
            ("SUPABASE_URL", false),
            ("supabase_anything", false),
        ] {
            assert_eq!(check_name(name).is_ok(), valid, "{name}");
        }
    }

    #[test]
    fn env_files_read_as_the_cli_reads_them() {
        let text = "# comment\n\nSTRIPE_KEY=sk_test_1\nexport QUOTED=\"a b\"\nSINGLE='c=d'\nEMPTY=\n";
        let parsed = parse_env_file(text).expect("parsed");
        let expected = [("STRIPE_KEY", "sk_test_1"), ("QUOTED", "a b"), ("SINGLE", "c=d"), ("EMPTY", "")];
        assert_eq!(parsed, expected.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect::<Vec<_>>());
        assert!(parse_env_file("NOVALUE\n").expect_err("refused").starts_with("line 1"));
        assert!(parse_env_file("SUPABASE_URL=x\n").is_err());
    }
}
