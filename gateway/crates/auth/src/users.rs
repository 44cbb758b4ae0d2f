//! The operator's `gateway users add` and `gateway users list`: the admin API's
//! user creation and listing without HTTP, straight on the database.

use serde_json::{Value, json};
use uuid::Uuid;

use super::error::AuthError;
use super::handlers::valid_email;
use super::password;
use super::store::{self, Conflict, Login, NewUser};
use crate::AuthState;
use gateway_core::error::ApiError;

/// Creates a confirmed e-mail user who can sign in at once; `name` goes to
/// `user_metadata.name`. Same rules as the API: valid e-mail, password length,
/// one account per address.
pub async fn add(
    state: &AuthState,
    email: &str,
    secret: &str,
    name: Option<&str>,
) -> Result<Value, ApiError> {
    let login = Login::Email(valid_email(email)?);
    password::check_new(secret, state.config.password_min_length)?;
    let mut user = NewUser {
        id: Uuid::new_v4(),
        login,
        password_hash: Some(password::hash(secret).await?),
        confirmed: true,
        confirmation_sent: false,
        user_metadata: json!({}),
        app_metadata: json!({ "provider": "email", "providers": ["email"] }),
        banned_until: None,
    };
    let identity = store::identity_data(&user);
    if let (Value::Object(metadata), Value::Object(identity)) = (&mut user.user_metadata, identity) {
        metadata.extend(identity);
        if let Some(name) = name {
            metadata.insert("name".to_owned(), Value::String(name.to_owned()));
        }
    }
    match store::create_user(&state.db, &user, None).await? {
        Ok((created, _)) => Ok(created),
        Err(Conflict::Email | Conflict::Phone) => Err(AuthError::email_exists().into()),
    }
}

/// Sets the password of the user with this e-mail (same length rules as the
/// API); false when there is no such user.
pub async fn set_password(state: &AuthState, email: &str, secret: &str) -> Result<bool, ApiError> {
    password::check_new(secret, state.config.password_min_length)?;
    let Some(user) = store::credentials(&state.db, &Login::Email(valid_email(email)?)).await? else {
        return Ok(false);
    };
    let changes = store::Changes { password_hash: Some(password::hash(secret).await?), ..Default::default() };
    match store::update_user(&state.db, user.id, &changes).await? {
        Ok(found) => Ok(found.is_some()),
        Err(_) => Err(ApiError::internal("a password change conflicted with another user")),
    }
}

/// Every user, newest first.
pub async fn list(state: &AuthState) -> Result<Vec<Value>, ApiError> {
    Ok(store::list_users(&state.db, None, 1, i64::MAX / 2).await?.0)
}
