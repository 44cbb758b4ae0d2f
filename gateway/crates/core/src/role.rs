//! The three database roles a request may run as.

use std::fmt;

/// A request runs as exactly one of these (Supabase's roles). Anything else in a
/// token's `role` claim is refused before any SQL runs, which is stricter than
/// PostgREST (it relies on grants) and removes a class of misconfigurations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    Anon,
    Authenticated,
    ServiceRole,
}

impl Role {
    pub const ALL: [Role; 3] = [Role::Anon, Role::Authenticated, Role::ServiceRole];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Anon => "anon",
            Role::Authenticated => "authenticated",
            Role::ServiceRole => "service_role",
        }
    }

    pub fn parse(name: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|role| role.as_str() == name)
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
