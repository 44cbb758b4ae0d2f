//! `GET /_/api/settings`: the settings `gateway serve` runs with (auth,
//! mail, providers, rate limits, hooks, and every other section), each with
//! where it came from: a command-line flag, an environment variable or the
//! default, as clap's `ArgMatches::value_source` tells. Studio shows the
//! auth settings of a hosted project read from its GoTrue; here they are
//! the command line's, so the list is made once at start-up and never
//! changes while the gateway runs.
//!
//! A secret ([`Secret`], or a flag whose environment value clap hides) is
//! shown as `set` or `not set`, never its value; an OpenID Connect provider
//! as its name and issuer, without its client secret.

use std::{any::TypeId, sync::Arc};

use axum::{Json, extract::State};
use clap::{ArgMatches, parser::ValueSource};
use gateway_auth::oidc::ProviderConfig;
use gateway_core::config::Secret;
use serde::Serialize;
use serde_json::{Value, json};

use super::{ConsoleError, access::Operator};
use crate::AppState;

/// Where a setting's value came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    Flag,
    Env,
    Default,
    /// Neither given nor defaulted: the setting is off.
    Unset,
}

/// One setting as the console shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Setting {
    /// The section of `gateway serve --help` (`Auth`, `Auth mail`, ...).
    pub section: String,
    /// The flag, `--auth-signup-enabled`.
    pub flag: String,
    /// The environment variable, `AUTH_SIGNUP_ENABLED`.
    pub env: Option<String>,
    /// The value as given, `set` or `not set` for a secret, empty when
    /// unset.
    pub value: String,
    pub secret: bool,
    pub source: Source,
}

/// The live settings, read once from the command line `gateway serve` was
/// started with; empty when the configuration was built another way.
#[derive(Clone, Debug, Default)]
pub struct Settings(Arc<Vec<Setting>>);

impl Settings {
    /// The settings of `command` (the `serve` command clap built) as
    /// `matches` holds them.
    pub fn read(command: &clap::Command, matches: &ArgMatches) -> Self {
        let settings = command
            .get_arguments()
            .filter(|arg| !matches!(arg.get_id().as_str(), "help" | "version"))
            .filter_map(|arg| {
                let id = arg.get_id().as_str();
                let flag = format!("--{}", arg.get_long()?);
                let source = match matches.value_source(id) {
                    Some(ValueSource::CommandLine) => Source::Flag,
                    Some(ValueSource::EnvVariable) => Source::Env,
                    Some(ValueSource::DefaultValue) => Source::Default,
                    _ => Source::Unset,
                };
                let (value, secret) = shown(arg, matches);
                Some(Setting {
                    section: arg.get_help_heading().unwrap_or("Gateway").to_owned(),
                    flag,
                    env: arg.get_env().map(|env| env.to_string_lossy().into_owned()),
                    value,
                    secret,
                    source,
                })
            })
            .collect();
        Settings(Arc::new(settings))
    }

    pub fn all(&self) -> &[Setting] {
        &self.0
    }
}

/// A setting's value as it may be shown, and whether it is a secret. What
/// the value is comes from the type the flag parses to (clap's
/// `ValueParser::type_id`), not from the value, so an absent secret is
/// still one.
fn shown(arg: &clap::Arg, matches: &ArgMatches) -> (String, bool) {
    let id = arg.get_id().as_str();
    let parsed_to = arg.get_value_parser().type_id();
    let raw: Vec<String> = matches
        .try_get_raw(id)
        .ok()
        .flatten()
        .into_iter()
        .flatten()
        .map(|value| value.to_string_lossy().into_owned())
        .collect();
    if parsed_to == TypeId::of::<Secret>() || arg.is_hide_env_values_set() {
        return (if raw.is_empty() { "not set" } else { "set" }.to_owned(), true);
    }
    if parsed_to == TypeId::of::<ProviderConfig>() {
        let names: Vec<String> = matches
            .try_get_many::<ProviderConfig>(id)
            .ok()
            .flatten()
            .into_iter()
            .flatten()
            .map(|p| format!("{} ({}, client {})", p.name, p.issuer, p.client_id))
            .collect();
        return (names.join("; "), false);
    }
    (raw.join(", "), false)
}

/// `{settings: [{section, flag, env, value, secret, source}]}`, in the
/// order of `gateway serve --help`.
pub async fn list(State(state): State<AppState>, _operator: Operator) -> Result<Json<Value>, ConsoleError> {
    Ok(Json(json!({ "settings": state.config.console.settings.all() })))
}
