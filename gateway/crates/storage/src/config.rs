//! Storage settings: the global upload limit and where bytes live (the local
//! storage root, or an S3-compatible bucket), and when orphaned bytes are swept.

use gateway_core::config::{Secret, Span, parse_size};

/// Storage's section of the gateway's configuration.
#[derive(Clone, Debug, clap::Args)]
#[command(next_help_heading = "Storage")]
pub struct StorageConfig {
    /// Largest object accepted, in bytes or with a unit (`50MB`, `1GiB`); a
    /// bucket's own `file_size_limit` can only lower it. Supabase's default is
    /// 50 MB (`UPLOAD_FILE_SIZE_LIMIT`).
    #[arg(long, env = "STORAGE_FILE_SIZE_LIMIT", default_value = "50MB", value_parser = parse_size)]
    pub file_size_limit: u64,

    /// S3 bucket holding the bytes. When unset, bytes live on local disk under
    /// `--storage-root`.
    #[arg(long, env = "STORAGE_S3_BUCKET")]
    pub s3_bucket: Option<String>,

    /// S3 endpoint, for S3-compatible servers (MinIO, Garage, R2...), e.g.
    /// `http://127.0.0.1:9000`. Unset: AWS's endpoint for the region.
    #[arg(long, env = "STORAGE_S3_ENDPOINT")]
    pub s3_endpoint: Option<String>,

    /// S3 region.
    #[arg(long, env = "STORAGE_S3_REGION", default_value = "us-east-1")]
    pub s3_region: String,

    /// S3 access key id.
    #[arg(long, env = "STORAGE_S3_ACCESS_KEY_ID")]
    pub s3_access_key_id: Option<String>,

    /// S3 secret access key.
    #[arg(long, env = "STORAGE_S3_SECRET_ACCESS_KEY")]
    pub s3_secret_access_key: Option<Secret>,

    /// Address buckets as `<endpoint>/<bucket>` instead of
    /// `<bucket>.<endpoint>`, as most self-hosted S3 servers need.
    #[arg(long, env = "STORAGE_S3_FORCE_PATH_STYLE", default_value_t = false, action = clap::ArgAction::Set)]
    pub s3_force_path_style: bool,

    /// The region S3 clients sign for at `/storage/v1/s3` (the S3
    /// protocol, docs/services/s3.md); a signature for another region is
    /// refused with `AuthorizationHeaderMalformed`. `local`, as the
    /// Supabase CLI's.
    #[arg(long = "storage-s3-protocol-region", env = "STORAGE_S3_PROTOCOL_REGION", default_value = "local")]
    pub s3_protocol_region: String,

    /// How old a blob no row points at must be before a sweep removes it
    /// (`gateway storage sweep`, `--storage-sweep-interval`). Bytes are
    /// written before their row commits, so a younger blob may belong to an
    /// upload in flight; keep this well above the longest upload.
    #[arg(long = "storage-sweep-grace", env = "STORAGE_SWEEP_GRACE", default_value = "1h")]
    pub sweep_grace: Span,

    /// How often `gateway serve` sweeps orphaned bytes (e.g. `6h`). Unset: never;
    /// run `gateway storage sweep` instead. Gateways sharing a database take
    /// turns (an advisory lock), so any number of them may set it.
    #[arg(long = "storage-sweep-interval", env = "STORAGE_SWEEP_INTERVAL")]
    pub sweep_interval: Option<Span>,

    /// Memory for recently read objects of up to 1 MiB (and a sixteenth of
    /// this), in bytes or with a unit; `0` turns it off. Only bytes are kept,
    /// under their version, which is never rewritten: every download still
    /// asks the database whether the object exists and may be read.
    #[arg(long = "storage-cache-size", env = "STORAGE_CACHE_SIZE", default_value = "64MiB", value_parser = parse_size)]
    pub cache_size: u64,

    /// How long a resumable (TUS) upload may take, from its creation: after
    /// that it answers 410 and the next sweep removes its bytes. Supabase
    /// documents upload URLs valid for up to 24 hours.
    #[arg(long = "storage-resumable-expiry", env = "STORAGE_RESUMABLE_EXPIRY", default_value = "24h")]
    pub resumable_expiry: Span,

    /// Size of the S3 parts a resumable upload is stored in (5 MiB to 5 GiB,
    /// S3's bounds), in bytes or with a unit. A request's bytes short of a
    /// whole part wait in a blob of their own until the next request: this is
    /// also the memory one `PATCH` holds. Local disk appends to one file and
    /// ignores it.
    #[arg(
        long = "storage-resumable-part-size",
        env = "STORAGE_RESUMABLE_PART_SIZE",
        default_value = "5MiB",
        value_parser = parse_part_size
    )]
    pub resumable_part_size: u64,

    /// Image transformations (`/render/image/...`) run at once, each on a
    /// core of its own; more wait their turn. Unset: one per core.
    #[arg(long = "storage-image-workers", env = "STORAGE_IMAGE_WORKERS")]
    pub image_workers: Option<usize>,

    /// Memory for transformed images (variants), in bytes or with a unit;
    /// `0` turns it off. Kept under the source's version and the transform,
    /// so an overwritten image never serves an old variant.
    #[arg(long = "storage-image-cache-size", env = "STORAGE_IMAGE_CACHE_SIZE", default_value = "32MiB", value_parser = parse_size)]
    pub image_cache_size: u64,

    /// Largest source image transformed, in pixels (width x height, read
    /// from the file's header before anything is decoded): a larger one is
    /// refused with Storage's "resolution is too large" error, so a small
    /// file that decodes to gigabytes (a decompression bomb) costs nothing.
    #[arg(long = "storage-image-max-pixels", env = "STORAGE_IMAGE_MAX_PIXELS", default_value_t = 40_000_000)]
    pub image_max_pixels: u64,
}

/// [`parse_size`] within S3's bounds for a multipart part.
fn parse_part_size(text: &str) -> Result<u64, String> {
    let size = parse_size(text)?;
    if !(5 << 20..=5 << 30).contains(&size) {
        return Err(format!("invalid part size {text:?}: S3 takes 5MiB to 5GiB"));
    }
    Ok(size)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn part_sizes_stay_within_s3s_bounds() {
        let cases = [("5MiB", Some(5 << 20)), ("5MB", None), ("8MiB", Some(8 << 20)), ("6GiB", None)];
        for (text, expected) in cases {
            assert_eq!(parse_part_size(text).ok(), expected, "{text}");
        }
    }
}
