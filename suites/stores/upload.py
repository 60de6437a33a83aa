"""Creates a bucket (moto's S3) or a container (Azurite) and uploads a folder into it (on S3,
with a folder marker beside the files, as the S3 console makes one).

Used by suites/tests/inspect_stores.rs with the project's .venv (boto3 comes with moto,
azure-storage-blob is pinned beside it by scripts/setup-spark.sh):

    upload.py s3 http://127.0.0.1:PORT BUCKET PREFIX DIR
    upload.py azure http://127.0.0.1:PORT/devstoreaccount1 CONTAINER PREFIX DIR
"""

import os
import sys

# Azurite's well-known development account (public, documented by Azure).
AZURITE_ACCOUNT = "devstoreaccount1"
AZURITE_KEY = (
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)


def files(folder):
    """(key relative to folder, absolute path) of every file below folder, sorted."""
    found = []
    for top, _dirs, names in os.walk(folder):
        for name in names:
            path = os.path.join(top, name)
            found.append((os.path.relpath(path, folder).replace(os.sep, "/"), path))
    return sorted(found)


def to_s3(endpoint, bucket, prefix, folder):
    import boto3

    s3 = boto3.client(
        "s3",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    s3.create_bucket(Bucket=bucket)
    for key, path in files(folder):
        with open(path, "rb") as body:
            s3.put_object(Bucket=bucket, Key=f"{prefix}/{key}", Body=body.read())
    # An empty object named like a folder, as the S3 console's "Create folder" leaves: no file.
    s3.put_object(Bucket=bucket, Key=f"{prefix}/offsets/", Body=b"")


def to_azure(endpoint, container, prefix, folder):
    from azure.storage.blob import BlobServiceClient

    service = BlobServiceClient(
        account_url=endpoint,
        credential={"account_name": AZURITE_ACCOUNT, "account_key": AZURITE_KEY},
    )
    client = service.create_container(container)
    for key, path in files(folder):
        with open(path, "rb") as body:
            client.upload_blob(f"{prefix}/{key}", body.read())


def main():
    kind, endpoint, bucket, prefix, folder = sys.argv[1:6]
    {"s3": to_s3, "azure": to_azure}[kind](endpoint, bucket, prefix, folder)


if __name__ == "__main__":
    main()
