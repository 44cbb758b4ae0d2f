//! Row-level security as the table editor writes it: enabling it on a table
//! and a policy from one of the templates Studio's policy editor offers
//! (public read, authenticated read, rows owned by `auth.uid()`). Each is
//! rendered as the SQL text the operator sees before it runs; names are
//! quoted by `quote_ident` and nothing else from the request reaches it.
//!
//! Studio's templates: <https://github.com/supabase/supabase/tree/master/apps/studio/components/interfaces/Auth/Policies>

use gateway_core::sql::quote_ident;
use serde::Deserialize;

/// The policies the editor can write without the operator typing SQL.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(tag = "template", rename_all = "camelCase")]
pub enum Template {
    /// Anyone, signed in or not, reads every row.
    PublicRead,
    /// Signed-in users read every row.
    AuthenticatedRead,
    /// Signed-in users read and write the rows whose `column` is their id.
    Owner { column: String },
}

/// `alter table ... enable row level security` for `schema.table`.
pub fn enable_rls(schema: &str, table: &str) -> String {
    format!("alter table {}.{} enable row level security;", quote_ident(schema), quote_ident(table))
}

/// `create policy` for `schema.table` from `template`, named `name`.
pub fn create_policy(schema: &str, table: &str, name: &str, template: &Template) -> String {
    let target = format!("{}.{}", quote_ident(schema), quote_ident(table));
    let name = quote_ident(name);
    match template {
        Template::PublicRead => {
            format!("create policy {name} on {target} for select to anon, authenticated using (true);")
        }
        Template::AuthenticatedRead => {
            format!("create policy {name} on {target} for select to authenticated using (true);")
        }
        Template::Owner { column } => {
            let owned = format!("(select auth.uid()) = {}", quote_ident(column));
            format!(
                "create policy {name} on {target} for all to authenticated using ({owned}) with check ({owned});"
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enabling_rls_quotes_the_schema_and_the_table() {
        assert_eq!(
            enable_rls("public", "Books"),
            r#"alter table "public"."Books" enable row level security;"#
        );
    }

    #[test]
    fn each_template_renders_one_policy_with_its_names_quoted() {
        let owner = Template::Owner { column: "user_id".into() };
        let cases = [
            (
                Template::PublicRead,
                r#"create policy "p" on "public"."t" for select to anon, authenticated using (true);"#,
            ),
            (
                Template::AuthenticatedRead,
                r#"create policy "p" on "public"."t" for select to authenticated using (true);"#,
            ),
            (
                owner,
                r#"create policy "p" on "public"."t" for all to authenticated using ((select auth.uid()) = "user_id") with check ((select auth.uid()) = "user_id");"#,
            ),
        ];
        for (template, expected) in cases {
            assert_eq!(create_policy("public", "t", "p", &template), expected, "{template:?}");
        }
    }

    #[test]
    fn a_name_with_a_quote_stays_one_identifier() {
        let template = Template::Owner { column: r#"a"; drop table x; --"#.into() };
        let sql = create_policy("public", "t", r#"p" on x"#, &template);
        assert!(sql.starts_with(r#"create policy "p"" on x" on "public"."t""#), "{sql}");
        assert!(sql.contains(r#""a""; drop table x; --""#), "{sql}");
    }
}
