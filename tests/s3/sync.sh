#!/usr/bin/env bash
# `aws s3 sync` and `rclone sync` of a folder up to /storage/v1/s3 and back
# down, compared byte for byte (and by MD5 with `rclone check`, since ETags
# are MD5s). Driven by gateway/tests/s3_protocol.rs with S3_ENDPOINT,
# S3_REGION, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY set.
set -euo pipefail

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/up/nested/deeper" "$work/aws-down" "$work/rclone-down"
head -c 3000000 /dev/urandom >"$work/up/big.bin"
echo "hello" >"$work/up/hello.txt"
echo "inside" >"$work/up/nested/inside.txt"
head -c 70000 /dev/urandom >"$work/up/nested/deeper/file (1).bin"

# The AWS CLI, addressing buckets by path.
cat >"$work/aws-config" <<CONFIG
[default]
region = $S3_REGION
s3 =
  addressing_style = path
CONFIG
export AWS_CONFIG_FILE="$work/aws-config" AWS_SHARED_CREDENTIALS_FILE=/dev/null
export AWS_ACCESS_KEY_ID="$S3_ACCESS_KEY_ID" AWS_SECRET_ACCESS_KEY="$S3_SECRET_ACCESS_KEY"
aws="aws --endpoint-url $S3_ENDPOINT"
$aws s3 mb s3://synced >/dev/null
$aws s3 sync "$work/up" s3://synced/aws >/dev/null
$aws s3 sync s3://synced/aws "$work/aws-down" >/dev/null
diff -r "$work/up" "$work/aws-down"
[ "$($aws s3 ls s3://synced/aws/ | grep -c PRE)" = 1 ]

# rclone (Debian's package), configured by its environment variables. Its
# AWS SDK refuses a custom CA bundle over plain HTTP, so none is passed on.
unset AWS_CA_BUNDLE
export RCLONE_CONFIG_GW_TYPE=s3 RCLONE_CONFIG_GW_PROVIDER=Other RCLONE_CONFIG_GW_ENDPOINT="$S3_ENDPOINT"
export RCLONE_CONFIG_GW_ACCESS_KEY_ID="$S3_ACCESS_KEY_ID" RCLONE_CONFIG_GW_SECRET_ACCESS_KEY="$S3_SECRET_ACCESS_KEY"
export RCLONE_CONFIG_GW_REGION="$S3_REGION" RCLONE_CONFIG_GW_FORCE_PATH_STYLE=true
rclone --config /dev/null sync "$work/up" gw:synced/rclone
rclone --config /dev/null check "$work/up" gw:synced/rclone
rclone --config /dev/null sync gw:synced/rclone "$work/rclone-down"
diff -r "$work/up" "$work/rclone-down"
# A file gone locally goes remotely at the next sync.
rm "$work/up/hello.txt"
rclone --config /dev/null sync "$work/up" gw:synced/rclone
[ -z "$(rclone --config /dev/null lsf gw:synced/rclone/hello.txt 2>/dev/null)" ]
echo synced
