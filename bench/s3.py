"""Upload and download through /storage/v1/s3 (boto3, SigV4 signed) against
the REST API (/storage/v1/object, the service key) and against writing and
reading the same bytes as a local file, at 1 MB and 50 MB, in one run.

Called by bench/storage.sh with the gateway's address, its service key, an S3
access key pair and a bucket both APIs write to. Prints MB/s per path and the
S3 path's ratios to the REST API and to the file system.
"""

import http.client
import os
import sys
import tempfile
import time
import urllib.parse

import boto3
from botocore.config import Config

url, service_key, access_key, secret_key, bucket = sys.argv[1:6]
rounds = {1: int(os.environ.get("ROUNDS_1MB", "20")), 50: int(os.environ.get("ROUNDS_50MB", "3"))}
parsed = urllib.parse.urlparse(url)

s3 = boto3.client(
    "s3",
    endpoint_url=f"{url}/storage/v1/s3",
    region_name="local",
    aws_access_key_id=access_key,
    aws_secret_access_key=secret_key,
    # One PUT per object, as the REST API's one POST: no multipart split.
    config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}),
)
rest = http.client.HTTPConnection(parsed.hostname, parsed.port)


def rest_put(key, body):
    rest.request("POST", f"/storage/v1/object/{bucket}/{key}", body=body, headers={
        "authorization": f"Bearer {service_key}", "apikey": service_key,
        "content-type": "application/octet-stream", "x-upsert": "true"})
    answer = rest.getresponse()
    answer.read()
    assert answer.status == 200, answer.status


def rest_get(key):
    rest.request("GET", f"/storage/v1/object/{bucket}/{key}", headers={
        "authorization": f"Bearer {service_key}", "apikey": service_key})
    answer = rest.getresponse()
    data = answer.read()
    assert answer.status == 200, answer.status
    return data


def s3_put(key, body):
    s3.put_object(Bucket=bucket, Key=key, Body=body, ContentType="application/octet-stream")


def s3_get(key):
    return s3.get_object(Bucket=bucket, Key=key)["Body"].read()


scratch = tempfile.mkdtemp(prefix="bench-s3-")


def file_put(key, body):
    with open(os.path.join(scratch, key), "wb") as out:
        out.write(body)


def file_get(key):
    with open(os.path.join(scratch, key), "rb") as source:
        return source.read()


def timed(action, key, n):
    """Seconds for `action` on n keys `key-0` ... `key-<n-1>`."""
    started = time.perf_counter()
    for i in range(n):
        action(f"{key}-{i}")
    return time.perf_counter() - started


paths = [("file", file_put, file_get), ("REST", rest_put, rest_get), ("S3", s3_put, s3_get)]
print(f"{'size':>6} {'path':>5} | {'up MB/s':>9} {'down MB/s':>10} | {'S3/this up':>10} {'S3/this down':>12}")
for mb, n in rounds.items():
    body = os.urandom(mb * 1000 * 1000)
    rates = {}
    for name, put, get in paths:
        up = timed(lambda key: put(key, body), f"{name}-{mb}", n)
        down = timed(get, f"{name}-{mb}", n)
        rates[name] = (mb * n / up, mb * n / down)
    for name, _, _ in paths:
        up, down = rates[name]
        s3_up, s3_down = rates["S3"]
        print(f"{mb:>4}MB {name:>5} | {up:>9.1f} {down:>10.1f} | {s3_up / up:>10.2f} {s3_down / down:>12.2f}")
