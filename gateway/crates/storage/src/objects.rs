//! The SQL of `storage.objects` and `storage.buckets`: fixed statements, every
//! value a parameter. Statements run in a [`Session`], as the caller (row-level
//! security decides) or as `service_role` where Storage itself acts as
//! superuser (finding a bucket's limits, serving public and signed URLs,
//! switching a row to the version just written).

use serde_json::Value;
use tokio_postgres::Row;
use uuid::Uuid;

use super::error::StorageError;
use gateway_core::db::{Db, Session};
use gateway_core::error::ApiError;

/// What an upload needs to know about its bucket.
#[derive(Debug, Clone)]
pub struct BucketLimits {
    pub public: bool,
    pub file_size_limit: Option<u64>,
    pub allowed_mime_types: Option<Vec<String>>,
}

/// Reads the bucket's limits and ends `session`, in one round trip.
pub async fn bucket_limits(session: Session, bucket: &str) -> Result<Option<BucketLimits>, ApiError> {
    let rows = session
        .query_and_end(
            "select public, file_size_limit, allowed_mime_types from storage.buckets where id = $1",
            &[&bucket],
            true,
        )
        .await?;
    Ok(rows.first().map(|row| BucketLimits {
        public: row.get(0),
        file_size_limit: row.get::<_, Option<i64>>(1).map(|n| n.max(0) as u64),
        allowed_mime_types: row.get(2),
    }))
}

/// The row of a new object version, as the upload will write it.
#[derive(Debug, Clone)]
pub struct NewObject<'a> {
    /// The id a newly inserted row gets (an upsert over an existing row keeps
    /// that row's id).
    pub id: Uuid,
    pub bucket: &'a str,
    pub name: &'a str,
    pub owner: Option<&'a str>,
    pub version: &'a str,
    pub metadata: Value,
    pub user_metadata: Option<Value>,
}

impl NewObject<'_> {
    fn owner_uuid(&self) -> Option<Uuid> {
        self.owner.and_then(|o| Uuid::parse_str(o).ok())
    }
}

/// How an upload treats an existing object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// POST without `x-upsert`: an existing object is a 409.
    Create,
    /// POST with `x-upsert: true`: insert or replace.
    Upsert,
    /// PUT: the object must exist.
    Update,
}

/// Writes the row for `object` and returns its id and the version it replaced,
/// leaving the transaction open. Run as the caller, it is both the permission
/// check (row-level security, the 409 for an existing key) and, once the bytes
/// are written and the session commits, the switch to the new version.
pub async fn write_row(
    session: &mut Session,
    object: &NewObject<'_>,
    mode: Mode,
) -> Result<(Uuid, Option<String>), ApiError> {
    let previous = previous_version(session, object, mode).await?;
    let owner = object.owner_uuid();
    let rows =
        session.query(write_sql(mode), &write_params(object, &owner)).await.map_err(duplicate_as_409)?;
    written(object, mode, &rows, previous)
}

/// [`write_row`], with the end of the transaction (`commit` false: rolled back,
/// the dry run of Storage's `Uploader.canUpload`) in the same round trip as
/// the write.
pub async fn write_row_and_end(
    mut session: Session,
    object: &NewObject<'_>,
    mode: Mode,
    commit: bool,
) -> Result<(Uuid, Option<String>), ApiError> {
    let previous = previous_version(&mut session, object, mode).await?;
    let owner = object.owner_uuid();
    let rows = session
        .query_and_end(write_sql(mode), &write_params(object, &owner), commit)
        .await
        .map_err(duplicate_as_409)?;
    written(object, mode, &rows, previous)
}

/// For an upsert or update: the version the row points at now, locked.
async fn previous_version(
    session: &mut Session,
    object: &NewObject<'_>,
    mode: Mode,
) -> Result<Option<Option<String>>, ApiError> {
    if mode == Mode::Create {
        return Ok(None);
    }
    let rows = session
        .query(
            "select version from storage.objects where bucket_id = $1 and name = $2 for update",
            &[&object.bucket, &object.name],
        )
        .await?;
    Ok(rows.first().map(|row| row.get::<_, Option<String>>(0)))
}

fn write_params<'a>(
    object: &'a NewObject<'_>,
    owner: &'a Option<Uuid>,
) -> [&'a (dyn tokio_postgres::types::ToSql + Sync); 8] {
    [
        &object.bucket,
        &object.name,
        owner,
        &object.owner,
        &object.metadata,
        &object.user_metadata,
        &object.version,
        &object.id,
    ]
}

fn write_sql(mode: Mode) -> &'static str {
    match mode {
        // No RETURNING: it would need a select policy, and Storage lets an
        // insert policy alone allow uploads.
        Mode::Create => {
            "insert into storage.objects (bucket_id, name, owner, owner_id, metadata, user_metadata, version, id) \
             values ($1, $2, $3, $4, $5, $6, $7, $8)"
        }
        Mode::Upsert => {
            "insert into storage.objects (bucket_id, name, owner, owner_id, metadata, user_metadata, version, id) \
             values ($1, $2, $3, $4, $5, $6, $7, $8) \
             on conflict (bucket_id, name) do update set \
               owner = excluded.owner, owner_id = excluded.owner_id, metadata = excluded.metadata, \
               user_metadata = excluded.user_metadata, version = excluded.version, \
               updated_at = now(), last_accessed_at = now() \
             returning id"
        }
        // `$8` is only mentioned so that every mode binds the same parameters.
        Mode::Update => {
            "update storage.objects set owner = $3, owner_id = $4, metadata = $5, user_metadata = $6, \
               version = $7, updated_at = now(), last_accessed_at = now() \
             where bucket_id = $1 and name = $2 and $8::uuid is not null returning id"
        }
    }
}

fn written(
    object: &NewObject<'_>,
    mode: Mode,
    rows: &[Row],
    previous: Option<Option<String>>,
) -> Result<(Uuid, Option<String>), ApiError> {
    if mode == Mode::Create {
        return Ok((object.id, None));
    }
    let Some(row) = rows.first() else {
        return Err(StorageError::no_such_key().into());
    };
    Ok((row.get(0), previous.flatten()))
}

/// One stored object, as a download needs it: a few text columns rather than
/// the `/object/info` JSON, which downloads never send.
#[derive(Debug, Clone)]
pub struct Blob {
    pub name: String,
    pub version: String,
    pub size: u64,
    pub mimetype: Option<String>,
    pub cache_control: Option<String>,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
}

const BLOB: &str = "o.name, o.version, o.metadata ->> 'size', o.metadata ->> 'mimetype', \
     o.metadata ->> 'cacheControl', o.metadata ->> 'eTag', o.metadata ->> 'lastModified'";

fn blob_of(row: &Row) -> Blob {
    Blob {
        name: row.get(0),
        version: row.get::<_, Option<String>>(1).unwrap_or_default(),
        size: row.get::<_, Option<&str>>(2).and_then(|s| s.parse().ok()).unwrap_or(0),
        mimetype: row.get(3),
        cache_control: row.get(4),
        etag: row.get(5),
        last_modified: row.get(6),
    }
}

/// The object to download, if the session's role may select it; ends the
/// session in the same round trip as the select.
pub async fn blob(session: Session, bucket: &str, name: &str) -> Result<Option<Blob>, ApiError> {
    let sql = format!("select {BLOB} from storage.objects o where o.bucket_id = $1 and o.name = $2");
    let rows = session.query_and_end(&sql, &[&bucket, &name], true).await?;
    Ok(rows.first().map(blob_of))
}

/// A public object to download, in one statement outside any transaction
/// (the views of `sql/021_storage_public_reads.sql`): no such public bucket is
/// `NoSuchBucket`, a public bucket without the object `NoSuchKey`.
pub async fn public_blob(db: &Db, bucket: &str, name: &str) -> Result<Blob, ApiError> {
    let sql = format!(
        "select {BLOB}, o.id from _gateway.public_buckets b \
         left join _gateway.public_objects o on o.bucket_id = b.id and o.name = $2 \
         where b.id = $1"
    );
    let rows = db.as_authenticator(&sql, &[&bucket, &name]).await?;
    let Some(row) = rows.first() else {
        return Err(StorageError::no_such_bucket().into());
    };
    if row.get::<_, Option<Uuid>>(7).is_none() {
        return Err(StorageError::no_such_key().into());
    }
    Ok(blob_of(row))
}

/// A unique violation on `(bucket_id, name)` is Storage's 409 Duplicate.
pub fn duplicate_as_409(error: ApiError) -> ApiError {
    match &error {
        ApiError::Database(db) if db.code == "23505" => StorageError::duplicate().into(),
        _ => error,
    }
}

/// One stored object, as downloads need it.
#[derive(Debug, Clone)]
pub struct Stored {
    pub id: Uuid,
    pub name: String,
    pub version: String,
    pub metadata: Value,
    pub info: Value,
}

impl Stored {
    pub fn size(&self) -> u64 {
        self.metadata.get("size").and_then(Value::as_u64).unwrap_or(0)
    }

    pub fn text(&self, key: &str) -> Option<&str> {
        self.metadata.get(key).and_then(Value::as_str)
    }
}

/// The object JSON Storage returns from `/object/info` (`FileObjectV2`, the
/// fields of supabase/storage `src/storage/renderer/info.ts`): no
/// `updated_at` or `last_accessed_at`, `last_modified` is the row's
/// `updated_at`, and `metadata` (the user's) is `{}` when none was given, as
/// Storage stores it.
const INFO: &str = concat!(
    "jsonb_build_object('id', o.id, 'name', o.name, 'version', o.version, 'bucket_id', o.bucket_id, \
     'size', (o.metadata ->> 'size')::bigint, 'content_type', o.metadata ->> 'mimetype', \
     'cache_control', o.metadata ->> 'cacheControl', 'etag', o.metadata ->> 'eTag', \
     'metadata', coalesce(o.user_metadata, '{}'::jsonb), 'last_modified', ",
    iso!("o.updated_at"),
    ", 'created_at', ",
    iso!("o.created_at"),
    ")"
);

fn stored(row: &Row) -> Stored {
    Stored {
        id: row.get(0),
        name: row.get(1),
        version: row.get::<_, Option<String>>(2).unwrap_or_default(),
        metadata: row.get::<_, Option<Value>>(3).unwrap_or(Value::Null),
        info: row.get(4),
    }
}

/// The object, if the session's role may select it.
pub async fn find(session: &mut Session, bucket: &str, name: &str) -> Result<Option<Stored>, ApiError> {
    let sql = format!(
        "select o.id, o.name, o.version, o.metadata, {INFO} from storage.objects o \
         where o.bucket_id = $1 and o.name = $2"
    );
    let rows = session.query(&sql, &[&bucket, &name]).await?;
    Ok(rows.first().map(stored))
}

/// `/object/info` of the object, if the session's role may select it; ends
/// the session in the same round trip as the select, as [`blob`] does.
pub async fn info(session: Session, bucket: &str, name: &str) -> Result<Option<Value>, ApiError> {
    let sql = format!("select {INFO} from storage.objects o where o.bucket_id = $1 and o.name = $2");
    let rows = session.query_and_end(&sql, &[&bucket, &name], true).await?;
    Ok(rows.first().map(|row| row.get(0)))
}

/// `/object/info` of the object in a public bucket, or which of the two is
/// missing, in one statement outside any transaction, like [`public_blob`]. A
/// private bucket looks exactly like a missing one, so its existence does not
/// leak.
pub async fn public_info(db: &Db, bucket: &str, name: &str) -> Result<Value, ApiError> {
    let sql = format!(
        "select o.id, {INFO} from _gateway.public_buckets b \
         left join _gateway.public_objects o on o.bucket_id = b.id and o.name = $2 \
         where b.id = $1"
    );
    let rows = db.as_authenticator(&sql, &[&bucket, &name]).await?;
    let Some(row) = rows.first() else {
        return Err(StorageError::no_such_bucket().into());
    };
    if row.get::<_, Option<Uuid>>(0).is_none() {
        return Err(StorageError::no_such_key().into());
    }
    Ok(row.get(1))
}

/// Deletes the named objects the session may delete; returns each deleted
/// row as Storage's `FileObject` JSON and the version its bytes live under.
pub async fn delete(
    session: &mut Session,
    bucket: &str,
    names: &[String],
) -> Result<Vec<(Value, String, String)>, ApiError> {
    let rows = session
        .query(
            concat!(
                "delete from storage.objects o where o.bucket_id = $1 and o.name = any($2) \
             returning jsonb_build_object('name', o.name, 'bucket_id', o.bucket_id, 'owner', o.owner, \
               'owner_id', o.owner_id, 'id', o.id, 'updated_at', ",
                iso!("o.updated_at"),
                ", 'created_at', ",
                iso!("o.created_at"),
                ", 'last_accessed_at', ",
                iso!("o.last_accessed_at"),
                ", 'metadata', o.metadata, \
               'user_metadata', o.user_metadata, 'version', o.version), o.name, o.version"
            ),
            &[&bucket, &names],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|row| (row.get(0), row.get(1), row.get::<_, Option<String>>(2).unwrap_or_default()))
        .collect())
}

/// Every object of a bucket the session may delete.
pub async fn delete_all(session: &mut Session, bucket: &str) -> Result<Vec<(String, String)>, ApiError> {
    let rows = session
        .query("delete from storage.objects where bucket_id = $1 returning name, version", &[&bucket])
        .await?;
    Ok(rows.iter().map(|row| (row.get(0), row.get::<_, Option<String>>(1).unwrap_or_default())).collect())
}

/// Escapes `%`, `_` and `\` so a LIKE pattern matches them literally.
pub fn like_literal(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
}

/// One page of a folder listing: sub-folders (with a null `id`) and files.
pub struct ListQuery<'a> {
    pub bucket: &'a str,
    /// A folder path ending in `/`, or empty for the root.
    pub prefix: &'a str,
    pub search: &'a str,
    pub limit: i64,
    pub offset: i64,
    /// Already checked against the allowed columns.
    pub sort_column: &'static str,
    pub descending: bool,
}

/// Storage's `storage.search()`: the entries one level below `prefix` whose
/// names start with `search` (case-insensitive), sorted bytewise by name
/// unless another column is asked for.
pub async fn list(session: &mut Session, query: &ListQuery<'_>) -> Result<Vec<Value>, ApiError> {
    let order = if query.descending { "desc" } else { "asc" };
    let sql = format!(
        "with matches as ( \
           select o.*, split_part(o.name, '/', $3::int) as entry, \
                  cardinality(o.path_tokens) > $3::int as in_folder \
           from storage.objects o \
           where o.bucket_id = $1 and o.name like $2 escape '\\' \
             and split_part(o.name, '/', $3::int) ilike $4 escape '\\' \
         ), entries as ( \
           select distinct on (entry) entry as name, null::uuid as id, null::timestamptz as updated_at, \
                  null::timestamptz as created_at, null::timestamptz as last_accessed_at, null::jsonb as metadata \
           from matches where in_folder \
           union all \
           select entry, id, updated_at, created_at, last_accessed_at, metadata from matches where not in_folder \
         ) \
         select jsonb_build_object('name', name, 'id', id, 'updated_at', {updated}, 'created_at', {created}, \
                  'last_accessed_at', {accessed}, 'metadata', metadata) \
         from entries order by {column} {order}, name collate \"C\" {order} limit $5 offset $6",
        // Names sort bytewise, whatever the database's collation.
        column = if query.sort_column == "name" { "name collate \"C\"" } else { query.sort_column },
        updated = iso!("updated_at"),
        created = iso!("created_at"),
        accessed = iso!("last_accessed_at"),
    );
    let levels = query.prefix.split('/').count() as i32;
    let prefix = format!("{}%", like_literal(query.prefix));
    let search = format!("{}%", like_literal(query.search));
    let rows =
        session.query(&sql, &[&query.bucket, &prefix, &levels, &search, &query.limit, &query.offset]).await?;
    Ok(rows.iter().map(|row| row.get(0)).collect())
}

/// For move: the source row's version, locked, if the session may see it.
pub async fn lock_version(
    session: &mut Session,
    bucket: &str,
    name: &str,
) -> Result<Option<String>, ApiError> {
    let rows = session
        .query(
            "select version from storage.objects where bucket_id = $1 and name = $2 for update",
            &[&bucket, &name],
        )
        .await?;
    Ok(rows.first().map(|row| row.get::<_, Option<String>>(0).unwrap_or_default()))
}

/// Renames a row (and points it at its copied bytes); `None` when the session
/// may not update it.
pub async fn rename(
    session: &mut Session,
    from: (&str, &str),
    to: (&str, &str),
    version: &str,
) -> Result<Option<Uuid>, ApiError> {
    let rows = session
        .query(
            "update storage.objects set bucket_id = $3, name = $4, version = $5, updated_at = now() \
             where bucket_id = $1 and name = $2 returning id",
            &[&from.0, &from.1, &to.0, &to.1, &version],
        )
        .await
        .map_err(duplicate_as_409)?;
    Ok(rows.first().map(|row| row.get(0)))
}
