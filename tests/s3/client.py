"""Real S3 clients against /storage/v1/s3, driven by gateway/tests/s3_protocol.rs.

boto3 (PyPI, installed by scripts/setup.sh) for every operation, plus a
small SigV4 signer of its own (`sign`) for what boto3 will not send: a
clock far off, and an aws-chunked body with signed chunks. Settings come
from the environment; the script prints one JSON line of what the Rust
test checks over the REST API, and fails with a traceback otherwise.
"""

import datetime
import hashlib
import hmac
import json
import os
import shutil
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

import boto3
from boto3.s3.transfer import TransferConfig
from botocore.config import Config
from botocore.exceptions import ClientError

ENDPOINT = os.environ["S3_ENDPOINT"]
REGION = os.environ["S3_REGION"]
ACCESS_KEY = os.environ["S3_ACCESS_KEY_ID"]
SECRET_KEY = os.environ["S3_SECRET_ACCESS_KEY"]
ANON_KEY = os.environ["ANON_KEY"]
USER_ID = os.environ["USER_ID"]
USER_TOKEN = os.environ["USER_TOKEN"]
OTHER_ID = os.environ["OTHER_ID"]
# OTHER_TOKEN: OTHER_ID's session token.
ORIGIN = "{0.scheme}://{0.netloc}".format(urllib.parse.urlparse(ENDPOINT))


def client(access_key=ACCESS_KEY, secret=SECRET_KEY, region=REGION, token=None):
    return boto3.client(
        "s3",
        endpoint_url=ENDPOINT,
        region_name=region,
        aws_access_key_id=access_key,
        aws_secret_access_key=secret,
        aws_session_token=token,
        config=Config(s3={"addressing_style": "path"}, signature_version="s3v4", retries={"max_attempts": 1}),
    )


def fails_with(code, call):
    """`call` fails with the S3 error `code`; otherwise the whole answer is
    shown, so a failure in CI says what came back instead."""
    try:
        call()
    except ClientError as e:
        got = e.response["Error"]["Code"]
        assert got == code, f"expected {code}, got {got}: {e.response}"
        return
    raise AssertionError(f"expected {code}, but the call succeeded")


def http(method, url, body=None, headers=None):
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def signing_key(secret, date):
    key = ("AWS4" + secret).encode()
    for part in (date, REGION, "s3", "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    return key


def sign(method, path, headers, payload_hash, when):
    """An Authorization header of our own, for a request at time `when`."""
    amz_date = when.strftime("%Y%m%dT%H%M%SZ")
    date = amz_date[:8]
    host = urllib.parse.urlparse(ENDPOINT).netloc
    headers = dict(headers, host=host, **{"x-amz-date": amz_date, "x-amz-content-sha256": payload_hash})
    names = sorted(headers)
    canonical = "\n".join(
        [method, urllib.parse.quote(path, safe="/~"), ""]
        + [f"{n}:{headers[n].strip()}" for n in names]
        + ["", ";".join(names), payload_hash]
    )
    scope = f"{date}/{REGION}/s3/aws4_request"
    to_sign = f"AWS4-HMAC-SHA256\n{amz_date}\n{scope}\n{sha256(canonical.encode())}"
    key = signing_key(SECRET_KEY, date)
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    headers["authorization"] = (
        f"AWS4-HMAC-SHA256 Credential={ACCESS_KEY}/{scope}, SignedHeaders={';'.join(names)}, Signature={signature}"
    )
    del headers["host"]
    return headers, key, scope, amz_date, signature


def chunked_put(path, data, chunk_size, tamper=False):
    """A PUT with a STREAMING-AWS4-HMAC-SHA256-PAYLOAD body, each chunk signed."""
    now = datetime.datetime.now(datetime.timezone.utc)
    headers = {"content-encoding": "aws-chunked", "x-amz-decoded-content-length": str(len(data))}
    headers, key, scope, amz_date, previous = sign(
        "PUT", path, headers, "STREAMING-AWS4-HMAC-SHA256-PAYLOAD", now
    )
    body = b""
    chunks = [data[i : i + chunk_size] for i in range(0, len(data), chunk_size)] + [b""]
    for chunk in chunks:
        to_sign = "\n".join(
            ["AWS4-HMAC-SHA256-PAYLOAD", amz_date, scope, previous, sha256(b""), sha256(chunk)]
        )
        previous = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
        sent = chunk.replace(b"a", b"b") if tamper else chunk
        body += f"{len(chunk):x};chunk-signature={previous}\r\n".encode() + sent + b"\r\n"
    return http("PUT", ORIGIN + path, body, headers)


def main():
    s3 = client()
    prefix = urllib.parse.urlparse(ENDPOINT).path
    report = {}

    # Buckets.
    s3.create_bucket(Bucket="s3-made")
    assert "s3-made" in [b["Name"] for b in s3.list_buckets()["Buckets"]]
    s3.head_bucket(Bucket="s3-made")
    fails_with("404", lambda: s3.head_bucket(Bucket="nowhere"))
    fails_with("BucketAlreadyExists", lambda: s3.create_bucket(Bucket="s3-made"))

    # Put and get, compared by checksum; the ETag is the MD5 the REST API gives.
    data = os.urandom(300_000)
    key = "dir/a b (1).bin"
    put = s3.put_object(Bucket="s3-made", Key=key, Body=data, ContentType="application/x-thing")
    assert put["ETag"] == '"%s"' % hashlib.md5(data).hexdigest(), put["ETag"]
    got = s3.get_object(Bucket="s3-made", Key=key)
    assert sha256(got["Body"].read()) == sha256(data)
    assert got["ContentType"] == "application/x-thing" and got["ETag"] == put["ETag"]
    head = s3.head_object(Bucket="s3-made", Key=key)
    assert head["ContentLength"] == len(data)
    report["s3_written"] = {"bucket": "s3-made", "key": key, "etag": put["ETag"], "sha256": sha256(data)}

    # Ranges and conditions.
    assert s3.get_object(Bucket="s3-made", Key=key, Range="bytes=10-19")["Body"].read() == data[10:20]
    fails_with("304", lambda: s3.get_object(Bucket="s3-made", Key=key, IfNoneMatch=put["ETag"]))
    fails_with("PreconditionFailed", lambda: s3.get_object(Bucket="s3-made", Key=key, IfMatch='"nope"'))
    future = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=1)
    fails_with("304", lambda: s3.get_object(Bucket="s3-made", Key=key, IfModifiedSince=future))
    fails_with("InvalidRange", lambda: s3.get_object(Bucket="s3-made", Key=key, Range="bytes=999999-"))
    fails_with("NoSuchKey", lambda: s3.get_object(Bucket="s3-made", Key="missing"))
    fails_with("NoSuchBucket", lambda: s3.get_object(Bucket="nowhere", Key="missing"))

    # The transfer manager (upload_file / download_file), in one part.
    with open(f"{WORK}/upload.bin", "wb") as f:
        f.write(data)
    single = TransferConfig(multipart_threshold=64 << 20)
    s3.upload_file(f"{WORK}/upload.bin", "s3-made", "transfer.bin", Config=single)
    s3.download_file("s3-made", "transfer.bin", f"{WORK}/download.bin", Config=single)
    with open(f"{WORK}/download.bin", "rb") as f:
        assert sha256(f.read()) == sha256(data)

    # Multipart: one upload aborted, another resumed from ListParts and
    # completed (3 parts, the second copied from an object), and the
    # transfer manager's own multipart upload.
    MiB = 1 << 20
    parts = [os.urandom(5 * MiB), os.urandom(5 * MiB), os.urandom(MiB)]
    s3.put_object(Bucket="s3-made", Key="part-source.bin", Body=parts[1])
    doomed = s3.create_multipart_upload(Bucket="s3-made", Key="big.bin", ContentType="application/x-big")["UploadId"]
    s3.upload_part(Bucket="s3-made", Key="big.bin", UploadId=doomed, PartNumber=1, Body=parts[0])
    s3.abort_multipart_upload(Bucket="s3-made", Key="big.bin", UploadId=doomed)
    fails_with("NoSuchUpload", lambda: s3.list_parts(Bucket="s3-made", Key="big.bin", UploadId=doomed))
    upload = s3.create_multipart_upload(Bucket="s3-made", Key="big.bin", ContentType="application/x-big")["UploadId"]
    s3.upload_part(Bucket="s3-made", Key="big.bin", UploadId=upload, PartNumber=1, Body=parts[0])
    listed = s3.list_multipart_uploads(Bucket="s3-made")
    assert [u["UploadId"] for u in listed["Uploads"]] == [upload], listed
    done = s3.list_parts(Bucket="s3-made", Key="big.bin", UploadId=upload)["Parts"]
    assert [p["PartNumber"] for p in done] == [1]
    copied = s3.upload_part_copy(
        Bucket="s3-made", Key="big.bin", UploadId=upload, PartNumber=2,
        CopySource={"Bucket": "s3-made", "Key": "part-source.bin"},
    )
    last = s3.upload_part(Bucket="s3-made", Key="big.bin", UploadId=upload, PartNumber=3, Body=parts[2])
    etags = [done[0]["ETag"], copied["CopyPartResult"]["ETag"], last["ETag"]]
    fails_with("InvalidPart", lambda: s3.complete_multipart_upload(
        Bucket="s3-made", Key="big.bin", UploadId=upload,
        MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": '"0"'}]},
    ))
    s3.complete_multipart_upload(
        Bucket="s3-made", Key="big.bin", UploadId=upload,
        MultipartUpload={"Parts": [{"PartNumber": n + 1, "ETag": e} for n, e in enumerate(etags)]},
    )
    whole = b"".join(parts)
    got = s3.get_object(Bucket="s3-made", Key="big.bin")
    assert sha256(got["Body"].read()) == sha256(whole) and got["ContentType"] == "application/x-big"
    assert "Uploads" not in s3.list_multipart_uploads(Bucket="s3-made")
    # 50 MB (the default size limit) in 8 MiB parts, sent at once.
    whole = os.urandom(50_000_000)
    with open(f"{WORK}/big.bin", "wb") as f:
        f.write(whole)
    parted = TransferConfig(multipart_threshold=8 * MiB, multipart_chunksize=8 * MiB)
    s3.upload_file(f"{WORK}/big.bin", "s3-made", "transfer-big.bin", Config=parted)
    s3.download_file("s3-made", "transfer-big.bin", f"{WORK}/big-back.bin", Config=parted)
    with open(f"{WORK}/big-back.bin", "rb") as f:
        assert sha256(f.read()) == sha256(whole)

    # An object the REST API wrote reads back over S3.
    rest = s3.get_object(Bucket="files", Key="from-rest.txt")["Body"].read()
    assert rest == b"written over REST", rest

    # Presigned GET and PUT (UNSIGNED-PAYLOAD), and an expired URL.
    url = s3.generate_presigned_url("get_object", Params={"Bucket": "s3-made", "Key": key}, ExpiresIn=60)
    status, body = http("GET", url)
    assert status == 200 and sha256(body) == sha256(data), status
    url = s3.generate_presigned_url("put_object", Params={"Bucket": "s3-made", "Key": "presigned.txt"}, ExpiresIn=60)
    status, body = http("PUT", url, b"put through a presigned URL")
    assert status == 200, (status, body)
    assert s3.get_object(Bucket="s3-made", Key="presigned.txt")["Body"].read() == b"put through a presigned URL"
    url = s3.generate_presigned_url("get_object", Params={"Bucket": "s3-made", "Key": key}, ExpiresIn=1)
    time.sleep(2)
    status, body = http("GET", url)
    assert status == 403 and b"<Code>AccessDenied</Code>" in body and b"Request has expired" in body, body

    # aws-chunked uploads with signed chunks; a tampered chunk is refused.
    chunked = os.urandom(200_000)
    status, body = chunked_put(f"{prefix}/s3-made/chunked.bin", chunked, 65536)
    assert status == 200, (status, body)
    assert sha256(s3.get_object(Bucket="s3-made", Key="chunked.bin")["Body"].read()) == sha256(chunked)
    status, body = chunked_put(f"{prefix}/s3-made/tampered.txt", b"a" * 1000, 300, tamper=True)
    assert status == 403 and b"SignatureDoesNotMatch" in body, (status, body)
    fails_with("404", lambda: s3.head_object(Bucket="s3-made", Key="tampered.txt"))

    # Listing with a delimiter, page by page, and after a key.
    for name in ["list/a.txt", "list/b/1.txt", "list/b/2.txt", "list/c/3.txt", "list/d.txt"]:
        s3.put_object(Bucket="s3-made", Key=name, Body=name.encode(), ContentType="text/plain")
    listed = s3.list_objects_v2(Bucket="s3-made", Prefix="list/", Delimiter="/")
    assert [c["Key"] for c in listed["Contents"]] == ["list/a.txt", "list/d.txt"], listed
    assert [p["Prefix"] for p in listed["CommonPrefixes"]] == ["list/b/", "list/c/"], listed
    assert listed["KeyCount"] == 4 and not listed["IsTruncated"]
    pages = s3.get_paginator("list_objects_v2").paginate(
        Bucket="s3-made", Prefix="list/", Delimiter="/", PaginationConfig={"PageSize": 1}
    )
    seen = []
    for page in pages:
        seen += [c["Key"] for c in page.get("Contents", [])] + [p["Prefix"] for p in page.get("CommonPrefixes", [])]
    assert seen == ["list/a.txt", "list/b/", "list/c/", "list/d.txt"], seen
    after = s3.list_objects_v2(Bucket="s3-made", Prefix="list/", StartAfter="list/b/2.txt")
    assert [c["Key"] for c in after["Contents"]] == ["list/c/3.txt", "list/d.txt"], after

    # What is not served says so, and leaves the object alone.
    fails_with("NotImplemented", lambda: s3.put_object_tagging(
        Bucket="s3-made", Key=key, Tagging={"TagSet": [{"Key": "a", "Value": "b"}]}))
    fails_with("NotImplemented", lambda: s3.get_bucket_acl(Bucket="s3-made"))
    assert s3.head_object(Bucket="s3-made", Key=key)["ContentLength"] == len(data)

    # Copy, then delete many.
    s3.copy_object(Bucket="s3-made", Key="copy.bin", CopySource={"Bucket": "s3-made", "Key": key})
    assert sha256(s3.get_object(Bucket="s3-made", Key="copy.bin")["Body"].read()) == sha256(data)
    everything = [o["Key"] for o in s3.list_objects_v2(Bucket="s3-made")["Contents"]]
    doomed = [k for k in everything if k != key]
    deleted = s3.delete_objects(Bucket="s3-made", Delete={"Objects": [{"Key": k} for k in doomed + ["never-was"]]})
    assert sorted(d["Key"] for d in deleted["Deleted"]) == sorted(doomed + ["never-was"]), deleted
    assert [o["Key"] for o in s3.list_objects_v2(Bucket="s3-made")["Contents"]] == [key]
    s3.delete_object(Bucket="s3-made", Key="never-was")

    # The bucket's limits hold over S3 as over REST.
    fails_with("EntityTooLarge", lambda: s3.put_object(Bucket="small", Key="big.txt", Body=b"x" * 200, ContentType="text/plain"))
    fails_with("InvalidArgument", lambda: s3.put_object(Bucket="small", Key="a.png", Body=b"x", ContentType="image/png"))
    s3.put_object(Bucket="small", Key="ok.txt", Body=b"fits", ContentType="text/plain")

    # A bucket is deleted only once empty.
    s3.create_bucket(Bucket="s3-gone")
    s3.put_object(Bucket="s3-gone", Key="x", Body=b"x")
    fails_with("BucketNotEmpty", lambda: s3.delete_bucket(Bucket="s3-gone"))
    s3.delete_object(Bucket="s3-gone", Key="x")
    s3.delete_bucket(Bucket="s3-gone")
    fails_with("404", lambda: s3.head_bucket(Bucket="s3-gone"))

    # Refused signatures, each with its code.
    fails_with("SignatureDoesNotMatch", lambda: client(secret="wrong" * 8).list_buckets())
    fails_with("InvalidAccessKeyId", lambda: client(access_key="0" * 32).list_buckets())
    fails_with("AuthorizationHeaderMalformed", lambda: client(region="us-east-1").list_buckets())
    skewed = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=20)
    headers = sign("GET", f"{prefix}/", {}, sha256(b""), skewed)[0]
    status, body = http("GET", f"{ENDPOINT}/", None, headers)
    assert status == 403 and b"RequestTimeTooSkewed" in body, body
    fresh = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=10)
    headers = sign("GET", f"{prefix}/", {}, sha256(b""), fresh)[0]
    status, body = http("GET", f"{ENDPOINT}/", None, headers)
    assert status == 200, body

    # A user's JWT as the session token: row-level security decides.
    user = client(access_key="any-project-ref", secret=ANON_KEY, token=USER_TOKEN)
    mine = f"{USER_ID}/mine.txt"
    user.put_object(Bucket="private", Key=mine, Body=b"mine", ContentType="text/plain")
    assert user.get_object(Bucket="private", Key=mine)["Body"].read() == b"mine"
    fails_with("AccessDenied", lambda: user.put_object(Bucket="private", Key=f"{OTHER_ID}/x.txt", Body=b"x"))
    fails_with("NoSuchKey", lambda: user.get_object(Bucket="private", Key=f"{OTHER_ID}/theirs.txt"))
    assert [o["Key"] for o in user.list_objects_v2(Bucket="private")["Contents"]] == [mine]
    assert len(s3.list_objects_v2(Bucket="private")["Contents"]) == 2
    refused = user.delete_objects(Bucket="private", Delete={"Objects": [{"Key": f"{OTHER_ID}/theirs.txt"}]})
    assert [e["Code"] for e in refused["Errors"]] == ["AccessDenied"], refused
    wrong = client(access_key="any-project-ref", secret="not-the-anon-key", token=USER_TOKEN)
    fails_with("SignatureDoesNotMatch", lambda: wrong.list_objects_v2(Bucket="private"))
    fails_with("AccessDenied", lambda: user.create_multipart_upload(Bucket="private", Key=f"{OTHER_ID}/big.bin"))
    own = user.create_multipart_upload(Bucket="private", Key=f"{USER_ID}/big.bin")["UploadId"]
    assert [u["UploadId"] for u in user.list_multipart_uploads(Bucket="private")["Uploads"]] == [own]
    fails_with("NoSuchUpload", lambda: client(access_key="any", secret=ANON_KEY, token=os.environ["OTHER_TOKEN"]).list_parts(
        Bucket="private", Key=f"{USER_ID}/big.bin", UploadId=own))
    user.abort_multipart_upload(Bucket="private", Key=f"{USER_ID}/big.bin", UploadId=own)
    report["user_written"] = {"bucket": "private", "key": mine}

    print(json.dumps(report))


WORK = tempfile.mkdtemp(prefix="s3-protocol-")
try:
    main()
finally:
    shutil.rmtree(WORK)
