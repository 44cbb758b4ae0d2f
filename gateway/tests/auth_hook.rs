//! The custom access-token hook: a PostgreSQL function named in the
//! configuration edits every access token's claims before it is signed
//! (Supabase's `custom_access_token_hook` contract), and its errors refuse the
//! grant as GoTrue refuses it, without leaking database internals.

mod common;

use serde_json::{Value, json};

use common::TestApp;
use common::auth::{access_token, refresh_token, spawn_auth_app};

const HOOK: &str = "pg-functions://postgres/public/custom_access_token_hook";

fn claims(app: &TestApp, token: &str) -> Value {
    serde_json::to_value(app.state.credentials.jwt.verify(token).expect("valid token").claims)
        .expect("claims")
}

async fn hooked_app(function_body: &str) -> TestApp {
    let app =
        spawn_auth_app(|auth| auth.hook_custom_access_token_uri = Some(HOOK.parse().expect("uri"))).await;
    let sql = format!(
        "create table public.user_roles (user_id uuid primary key, role text not null);
         create table public.hook_calls (event jsonb);
         create function public.custom_access_token_hook(event jsonb) returns jsonb
           language plpgsql as $$ {function_body} $$;
         revoke execute on function public.custom_access_token_hook(jsonb) from public, anon, authenticated;
         grant execute on function public.custom_access_token_hook(jsonb) to service_role;
         grant select on public.user_roles to service_role;
         grant insert on public.hook_calls to service_role;"
    );
    app.admin().await.batch_execute(&sql).await.expect("hook");
    app
}

const ADD_ROLE: &str = "
  declare claims jsonb := event->'claims';
  begin
    insert into public.hook_calls values (event);
    claims := jsonb_set(claims, '{user_role}',
      coalesce(to_jsonb((select role from public.user_roles where user_id = (event->>'user_id')::uuid)), 'null'));
    return jsonb_build_object('claims', claims);
  end";

#[tokio::test]
async fn the_hook_adds_a_role_claim_to_every_token_and_rls_reads_it() {
    let app = hooked_app(ADD_ROLE).await;
    let id = app.confirmed_user("boss@example.com", "s3cret-pw").await;
    let admin = app.admin().await;
    admin
        .batch_execute(&format!(
            "insert into public.user_roles values ('{id}', 'admin');
             create table public.reports (id int primary key);
             insert into public.reports values (7);
             alter table public.reports enable row level security;
             create policy admins on public.reports for select to authenticated
               using ((auth.jwt()->>'user_role') = 'admin');
             grant select on public.reports to authenticated;"
        ))
        .await
        .expect("data");
    app.state.schema.reload(&app.state.db).await.expect("reload");
    app.confirmed_user("clerk@example.com", "s3cret-pw").await;

    let boss = app.sign_in("boss@example.com", "s3cret-pw").await;
    assert_eq!(claims(&app, access_token(&boss))["user_role"], "admin");
    let refreshed = app.refresh(refresh_token(&boss)).await;
    assert_eq!(claims(&app, access_token(&refreshed.body))["user_role"], "admin");
    let clerk = app.sign_in("clerk@example.com", "s3cret-pw").await;
    assert_eq!(claims(&app, access_token(&clerk))["user_role"], Value::Null);

    // The event carries the user, the claims and the method, as GoTrue's.
    let methods: Vec<String> = admin
        .query("select event->>'authentication_method' from public.hook_calls order by ctid", &[])
        .await
        .expect("calls")
        .iter()
        .map(|row| row.get(0))
        .collect();
    assert_eq!(methods, ["password", "token_refresh", "password"]);
    let event: Value =
        admin.query_one("select event from public.hook_calls limit 1", &[]).await.expect("event").get(0);
    assert_eq!(event["user_id"], json!(id));
    assert_eq!(event["claims"]["sub"], json!(id));

    // (session, rows seen)
    let cases = [(&boss, json!([{"id": 7}])), (&clerk, json!([]))];
    for (session, rows) in cases {
        let answer = app
            .client
            .get(format!("{}/rest/v1/reports?select=id", app.address))
            .header("apikey", &app.anon_key)
            .bearer_auth(access_token(session))
            .send()
            .await
            .expect("read");
        assert_eq!(answer.json::<Value>().await.expect("json"), rows);
    }
}

#[tokio::test]
async fn hook_errors_refuse_the_grant_as_gotrue_does_without_leaking_internals() {
    // (hook body, status, code, message)
    let cases = [
        (
            "begin return jsonb_build_object('error', jsonb_build_object('http_code', 403, 'message', 'Account on hold')); end",
            403,
            "unknown",
            "Account on hold",
        ),
        (
            "begin return jsonb_build_object('claims', (event->'claims') - 'sub'); end",
            500,
            "unexpected_failure",
            "output claims do not conform to the expected schema: \n- (root): sub is required\n",
        ),
        ("begin return '{}'::jsonb; end", 500, "unexpected_failure", "output claims field is missing"),
    ];
    for (body, status, code, message) in cases {
        let app = hooked_app(body).await;
        app.confirmed_user("ana@example.com", "s3cret-pw").await;
        let reply = app.password_grant("ana@example.com", "s3cret-pw").await;
        assert_eq!(
            (reply.status, reply.code(), reply.body["msg"].as_str()),
            (status, code, Some(message)),
            "{body}"
        );
        // The refused sign-in left no session behind.
        let sessions: i64 = app
            .admin()
            .await
            .query_one("select count(*) from auth.sessions", &[])
            .await
            .expect("count")
            .get(0);
        assert_eq!(sessions, 0, "{body}");
    }
    // A hook that fails inside the database: a bare 500, nothing of the cause.
    let app = hooked_app("begin raise exception 'secret table xyz_internal is broken'; end").await;
    app.confirmed_user("ana@example.com", "s3cret-pw").await;
    let reply = app.password_grant("ana@example.com", "s3cret-pw").await;
    assert_eq!(reply.status, 500, "{:?}", reply.body);
    let text = reply.body.to_string();
    assert!(!text.contains("xyz_internal") && !text.contains("custom_access_token_hook"), "{text}");
    // Nothing was signed: no session was handed out.
    assert!(reply.body.get("access_token").is_none());
}
