//! `batchscope inspect` on an object store: a checkpoint under `s3://` (`s3a://`), `az://`
//! (`azure://`, `abfss://`, `wasbs://`), `gs://` or `file://`, read through the `object_store`
//! crate into the engine's [`Intake`].
//!
//! The stores are configured from the standard environment variables (`AWS_*`, `AZURE_*`,
//! `GOOGLE_*`, as `AmazonS3Builder::from_env()` and its siblings read them). The listing is
//! paged by `object_store` itself (S3's continuation tokens, Azure's markers, GCS's page
//! tokens), and it is bounded here: at most [`MAX_ENTRIES`] + 1 keys are taken. Every request
//! has a timeout, retries are few and none starts after half of it, and every step (a page of the
//! listing, one object) is given up after the timeout, so a dead server is an error within it.
//! The files go through the same [`Intake`] as the dashboard's `.zip`, with the disk reader's
//! limits, one by one in the disk reader's order, so the folder, the report and the notes are
//! the disk reader's; a few files are fetched at once ahead of it, those it may ask for.
//! Only the command-line tool reads stores: the page never holds credentials.

use batchscope_engine::checkpoint::{
    byte_limit, is_ignored_name, Admit, CheckpointFolder, Intake, COMMIT_LOG_DIR, MAX_ENTRIES,
    METADATA_FILE, OFFSET_LOG_DIR, SOURCES_DIR, STATE_DIR,
};
use futures_util::StreamExt as _;
use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::azure::{AzureConfigKey, MicrosoftAzureBuilder};
use object_store::gcp::{GoogleCloudStorageBuilder, GoogleConfigKey};
use object_store::local::LocalFileSystem;
use object_store::path::Path as StorePath;
use object_store::{
    BackoffConfig, ClientConfigKey, GetOptions, GetRange, ObjectStore, RetryConfig,
};
use std::collections::BTreeSet;
use std::future::Future;
use std::time::Duration;

/// Seconds each request to a store may take when neither `--timeout-secs` nor
/// [`TIMEOUT_ENV`] says otherwise.
pub const DEFAULT_TIMEOUT_SECS: u64 = 10;
/// The environment variable that sets the store timeout in seconds.
pub const TIMEOUT_ENV: &str = "BATCHSCOPE_STORE_TIMEOUT_SECS";
/// Retries of one failed request (a refused connection, a 5xx answer), all within half the
/// timeout.
const MAX_RETRIES: usize = 2;
/// Files fetched at once, ahead of the intake (which still takes them one by one, in order).
const AHEAD: usize = 8;
const SCHEMES: &str = "s3://, s3a://, az://, azure://, abfss://, wasbs://, gs:// or file://";

/// The kind of store a URL names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// `s3://bucket/prefix` or Spark's `s3a://bucket/prefix` (Amazon S3 or a compatible
    /// server).
    S3,
    /// `az://container/prefix` or `azure://container/prefix` (Azure Blob Storage), or Spark's
    /// `abfs[s]://container@account.dfs.core.windows.net/prefix` and `wasb[s]://…`.
    Azure,
    /// `gs://bucket/prefix` (Google Cloud Storage).
    Gcs,
    /// `file:///absolute/path` (the local disk, through `object_store`).
    File,
}

/// A checkpoint root in an object store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreUrl {
    /// The kind of store.
    pub scheme: Scheme,
    /// The bucket or container (empty for `file://`).
    pub bucket: String,
    /// The checkpoint root inside it, without a leading or trailing `/`; for `file://` the
    /// absolute path.
    pub prefix: String,
    /// The storage account that an Azure URL names (`container@account.…`); else the
    /// environment's.
    pub account: Option<String>,
    /// The URL as given, for messages.
    pub text: String,
}

/// Whether `text` is written as a URL (`scheme://…`) rather than a folder path.
pub fn looks_like_url(text: &str) -> bool {
    text.split_once("://").is_some_and(|(scheme, _)| {
        !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    })
}

/// Parses `s3://bucket/prefix`, `az://` or `azure://container/prefix`, `gs://bucket/prefix`
/// or `file:///absolute/path`; the error is one line naming the URL and what is wrong.
pub fn parse_url(text: &str) -> Result<StoreUrl, String> {
    let Some((scheme, rest)) = text.split_once("://") else {
        return Err(format!("{text}: not a URL; use {SCHEMES}"));
    };
    let scheme = match scheme.to_ascii_lowercase().as_str() {
        "s3" | "s3a" => Scheme::S3,
        "az" | "azure" | "abfs" | "abfss" | "wasb" | "wasbs" => Scheme::Azure,
        "gs" => Scheme::Gcs,
        "file" => Scheme::File,
        other => {
            return Err(format!(
                "{text}: `{other}://` is not a store; use {SCHEMES}"
            ))
        }
    };
    let url = |bucket: &str, prefix: &str| StoreUrl {
        scheme,
        bucket: bucket.to_owned(),
        prefix: prefix.trim_matches('/').to_owned(),
        account: None,
        text: text.to_owned(),
    };
    if scheme == Scheme::File {
        if !rest.starts_with('/') {
            return Err(format!(
                "{text}: a file URL needs an absolute path (file:///path/to/checkpoint)"
            ));
        }
        return Ok(StoreUrl {
            prefix: format!("/{}", rest.trim_matches('/')),
            ..url("", "")
        });
    }
    let (authority, prefix) = rest.split_once('/').unwrap_or((rest, ""));
    let (bucket, host) = match authority.split_once('@') {
        Some((container, host)) if scheme == Scheme::Azure => (container, Some(host)),
        _ => (authority, None),
    };
    if bucket.is_empty() {
        return Err(format!("{text}: no bucket or container name"));
    }
    let account = host.map(|host| host.split('.').next().unwrap_or(host).to_owned());
    if account.as_deref() == Some("") {
        return Err(format!("{text}: no storage account after `@`"));
    }
    Ok(StoreUrl {
        account,
        ..url(bucket, prefix)
    })
}

/// The timeout of each request: `flag` (`--timeout-secs`) when given, else [`TIMEOUT_ENV`],
/// else [`DEFAULT_TIMEOUT_SECS`]; at least one second.
pub fn timeout(flag: Option<u64>) -> Result<Duration, String> {
    let secs = match (flag, std::env::var(TIMEOUT_ENV)) {
        (Some(secs), _) => secs,
        (None, Ok(text)) => text
            .trim()
            .parse()
            .map_err(|_| format!("{TIMEOUT_ENV}={text}: not a whole number of seconds"))?,
        (None, Err(_)) => DEFAULT_TIMEOUT_SECS,
    };
    if secs == 0 {
        return Err("the store timeout must be at least 1 second".to_owned());
    }
    Ok(Duration::from_secs(secs))
}

/// Reads the checkpoint at `url` with the disk reader's limits and notes (see the module
/// documentation). The error is one line naming the URL and what is wrong: a bad URL, a
/// missing bucket, refused credentials, a server that does not answer within `timeout`.
pub fn read_url(url: &str, timeout: Duration) -> Result<(CheckpointFolder, Vec<String>), String> {
    let url = parse_url(url)?;
    let store = open(&url, timeout)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("{}: cannot start the I/O runtime ({error})", url.text))?;
    runtime.block_on(read_store(store.as_ref(), &url, timeout))
}

/// The store named by `url`, configured from the environment, with the request timeout and
/// bounded retries.
fn open(url: &StoreUrl, timeout: Duration) -> Result<Box<dyn ObjectStore>, String> {
    // The client options' timeouts (what `ClientOptions::with_timeout` and
    // `with_connect_timeout` set) as config keys: `with_client_options` would replace the
    // options read from the environment, `AWS_ALLOW_HTTP` among them.
    let limit = format!("{}ms", timeout.as_millis());
    let (t, c) = (ClientConfigKey::Timeout, ClientConfigKey::ConnectTimeout);
    let built: object_store::Result<Box<dyn ObjectStore>> = match url.scheme {
        Scheme::S3 => AmazonS3Builder::from_env()
            .with_bucket_name(&url.bucket)
            .with_config(AmazonS3ConfigKey::Client(t), &limit)
            .with_config(AmazonS3ConfigKey::Client(c), &limit)
            .with_retry(retry(timeout))
            .build()
            .map(|s| Box::new(s) as _),
        Scheme::Azure => azure_from_env(url)
            .with_container_name(&url.bucket)
            .with_config(AzureConfigKey::Client(t), &limit)
            .with_config(AzureConfigKey::Client(c), &limit)
            .with_retry(retry(timeout))
            .build()
            .map(|s| Box::new(s) as _),
        Scheme::Gcs => GoogleCloudStorageBuilder::from_env()
            .with_bucket_name(&url.bucket)
            .with_config(GoogleConfigKey::Client(t), &limit)
            .with_config(GoogleConfigKey::Client(c), &limit)
            .with_retry(retry(timeout))
            .build()
            .map(|s| Box::new(s) as _),
        Scheme::File => LocalFileSystem::new_with_prefix(&url.prefix).map(|s| Box::new(s) as _),
    };
    built.map_err(|error| format!("{}: cannot open the store: {}", url.text, one_line(&error)))
}

/// Azure's builder from the environment, with the account that the URL names, if any.
fn azure_from_env(url: &StoreUrl) -> MicrosoftAzureBuilder {
    let builder = MicrosoftAzureBuilder::from_env();
    match &url.account {
        Some(account) => builder.with_account(account),
        None => builder,
    }
}

/// Few retries, short backoff, and none started after half the timeout: a dead server is
/// given up on within the timeout.
fn retry(timeout: Duration) -> RetryConfig {
    RetryConfig {
        backoff: BackoffConfig {
            init_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(1),
            base: 2.0,
        },
        max_retries: MAX_RETRIES,
        retry_timeout: timeout / 2,
    }
}

/// Lists the checkpoint root, then offers each file to an [`Intake`] in the disk reader's
/// order and fetches what it admits.
async fn read_store(
    store: &dyn ObjectStore,
    url: &StoreUrl,
    timeout: Duration,
) -> Result<(CheckpointFolder, Vec<String>), String> {
    let listing = list(store, url, timeout).await?;
    let in_root = |key: &str| {
        key == METADATA_FILE
            || key
                .split_once('/')
                .is_some_and(|(top, _)| top == OFFSET_LOG_DIR)
    };
    if !listing.iter().any(|(key, _)| in_root(key)) {
        return Err(format!(
            "{}: not a Spark checkpoint folder (no `{METADATA_FILE}` object and no \
             `{OFFSET_LOG_DIR}/` under it)",
            url.text
        ));
    }
    let wanted = listing.iter().filter(|(key, size)| may_read(key, *size));
    let mut fetched = futures_util::stream::iter(wanted)
        .map(|(relative, size)| async move {
            let read = get(store, url, relative, *size, timeout).await;
            (relative.as_str(), read)
        })
        .buffered(AHEAD);
    let mut intake = Intake::new();
    for (relative, size) in &listing {
        match intake.admit(relative, *size) {
            Admit::Skip => {}
            Admit::NameOnly => intake.push_name(relative),
            Admit::Contents(_) => {
                let read = loop {
                    match fetched.next().await {
                        Some((name, read)) if name == relative => break read,
                        Some(_) => {}
                        None => break get(store, url, relative, *size, timeout).await,
                    }
                };
                take(read, url, relative, timeout, &mut intake)?;
            }
        }
    }
    Ok(intake.finish())
}

/// Whether the [`Intake`] may ask for the bytes of `key` (a superset of what it admits: it
/// also weighs depth and the total), so they are fetched ahead of it.
fn may_read(key: &str, size: u64) -> bool {
    let parts: Vec<&str> = key.split('/').collect();
    let wanted = match (parts[0], parts.len()) {
        (METADATA_FILE, 1) | (OFFSET_LOG_DIR | COMMIT_LOG_DIR, 2) => true,
        (SOURCES_DIR, n) => n >= 2,
        _ => false,
    };
    wanted && size <= byte_limit(key) && !parts.iter().any(|part| is_ignored_name(part))
}

/// The keys below the root (relative to it) with their sizes, at most [`MAX_ENTRIES`] + 1
/// (the intake notes the excess), directory markers left out, in [`disk_order`].
async fn list(
    store: &dyn ObjectStore,
    url: &StoreUrl,
    timeout: Duration,
) -> Result<Vec<(String, u64)>, String> {
    let root = match url.scheme {
        Scheme::File => None,
        _ => Some(StorePath::from(url.prefix.as_str())).filter(|p| !p.as_ref().is_empty()),
    };
    let under = root.as_ref().map(|p| format!("{}/", p.as_ref()));
    let mut pages = store.list(root.as_ref());
    let mut keys = Vec::new();
    while keys.len() <= MAX_ENTRIES {
        let step = deadline(timeout, pages.next(), url, "listing");
        let Some(meta) = step
            .await?
            .transpose()
            .map_err(|e| failed(url, "listing", &e, timeout))?
        else {
            break;
        };
        let key = meta.location.as_ref();
        let relative = under
            .as_deref()
            .map_or(Some(key), |dir| key.strip_prefix(dir));
        keys.push((relative.unwrap_or(key).to_owned(), meta.size));
    }
    // A folder written as an empty object (`offsets/` made by a console) is no file.
    let folders: BTreeSet<&str> = keys
        .iter()
        .flat_map(|(key, _)| key.match_indices('/').map(|(at, _)| &key[..at]))
        .collect();
    let markers: BTreeSet<String> = keys
        .iter()
        .filter(|(key, size)| *size == 0 && folders.contains(key.as_str()))
        .map(|(key, _)| key.clone())
        .collect();
    keys.retain(|(key, _)| !markers.contains(key));
    keys.sort_by(|(a, _), (b, _)| disk_order(a).cmp(&disk_order(b)));
    Ok(keys)
}

/// The order in which the disk reader meets a file: `metadata`, `offsets/`, `commits/`,
/// `sources/`, `state/`, then the rest; inside each, folder by folder with sorted names.
pub fn disk_order(key: &str) -> (usize, Vec<&str>) {
    let parts: Vec<&str> = key.split('/').collect();
    let rank = [
        METADATA_FILE,
        OFFSET_LOG_DIR,
        COMMIT_LOG_DIR,
        SOURCES_DIR,
        STATE_DIR,
    ]
    .iter()
    .position(|top| *top == parts[0])
    .unwrap_or(5);
    (rank, parts)
}

/// The bytes of the file `relative`, `size` of them (never more); the outer error is a
/// step that took longer than `timeout`.
async fn get(
    store: &dyn ObjectStore,
    url: &StoreUrl,
    relative: &str,
    size: u64,
    timeout: Duration,
) -> Result<object_store::Result<Vec<u8>>, String> {
    if size == 0 {
        return Ok(Ok(Vec::new()));
    }
    let options = GetOptions {
        range: Some(GetRange::Bounded(0..size)),
        ..GetOptions::default()
    };
    let read = async {
        let result = store.get_opts(&location(url, relative), options).await?;
        result.bytes().await.map(|bytes| bytes.to_vec())
    };
    deadline(timeout, read, url, relative).await
}

/// Hands what [`get`] read to `intake`. An object gone since the listing is a note, as an
/// unreadable file is on disk; any other failure ends the reading.
fn take(
    read: Result<object_store::Result<Vec<u8>>, String>,
    url: &StoreUrl,
    relative: &str,
    timeout: Duration,
    intake: &mut Intake,
) -> Result<(), String> {
    match read? {
        Ok(bytes) => intake.push(relative, bytes),
        Err(error @ object_store::Error::NotFound { .. }) => intake.note(format!(
            "{relative}: cannot be read ({}); skipped",
            one_line(&error)
        )),
        Err(error) => return Err(failed(url, relative, &error, timeout)),
    }
    Ok(())
}

/// The store path of the file at `relative` below the checkpoint root.
fn location(url: &StoreUrl, relative: &str) -> StorePath {
    match url.scheme {
        Scheme::File => StorePath::from(relative),
        _ if url.prefix.is_empty() => StorePath::from(relative),
        _ => StorePath::from(format!("{}/{relative}", url.prefix)),
    }
}

/// Runs one step (a page of the listing, one object), giving up after `timeout`.
async fn deadline<T>(
    timeout: Duration,
    step: impl Future<Output = T>,
    url: &StoreUrl,
    what: &str,
) -> Result<T, String> {
    tokio::time::timeout(timeout, step)
        .await
        .map_err(|_| timed_out(url, what, timeout))
}

/// One line naming the URL, the step and what went wrong.
fn failed(url: &StoreUrl, what: &str, error: &object_store::Error, timeout: Duration) -> String {
    let detail = flat(error);
    let denied = matches!(
        error,
        object_store::Error::PermissionDenied { .. } | object_store::Error::Unauthenticated { .. }
    );
    let reason = match REASONS
        .iter()
        .find(|(codes, _)| codes.iter().any(|c| detail.contains(c)))
    {
        _ if denied => "the credentials were refused".to_owned(),
        Some((_, reason)) => (*reason).to_owned(),
        // The client's timeout said as the step's deadline says it (whichever came first).
        None if detail.contains("timed out") => return timed_out(url, what, timeout),
        None => "the request failed".to_owned(),
    };
    format!("{}: {what}: {reason} ({})", url.text, summary(&detail))
}

/// The line of a step that had no answer within `timeout`.
fn timed_out(url: &StoreUrl, what: &str, timeout: Duration) -> String {
    format!(
        "{}: {what}: no answer from the server within {} s",
        url.text,
        timeout.as_secs()
    )
}

/// The server's answer when it sent one (`404 Not Found: NoSuchBucket: The specified …`),
/// else the whole error, shortened.
fn summary(detail: &str) -> String {
    let between = |open: &str, close: &str| {
        let from = detail.find(open)? + open.len();
        let len = detail[from..].find(close)?;
        Some(detail[from..from + len].trim().to_owned())
    };
    let answer = [
        between("status code: ", ":"),
        between("<Code>", "</Code>"),
        between("<Message>", "</Message>"),
    ];
    match answer {
        [Some(status), Some(code), message] => {
            let message = message.map_or(String::new(), |m| format!(": {m}"));
            shorten(&format!("{status}: {code}{message}"))
        }
        // No answer: the client's last words (`… - HTTP error: … Connection refused`).
        _ => match (detail.rsplit_once(" - "), between(", after ", " retries")) {
            (Some((_, last)), Some(n)) => shorten(&format!("{last}; after {n} retries")),
            (Some((_, last)), None) => shorten(last),
            (None, _) => shorten(detail),
        },
    }
}

/// What a store's error code or message means, first match wins.
const REASONS: [(&[&str], &str); 4] = [
    (&["NoSuchBucket"], "the bucket does not exist"),
    (&["ContainerNotFound"], "the container does not exist"),
    (
        &[
            "AuthorizationFailure",
            "AuthenticationFailed",
            "InvalidAccessKeyId",
            "SignatureDoesNotMatch",
            "AccessDenied",
            "403 Forbidden",
        ],
        "the credentials were refused",
    ),
    (
        &["Connection refused", "dns error"],
        "the server cannot be reached",
    ),
];

/// An error and its causes on one line.
fn flat(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text = format!("{text}: {cause_text}");
        }
        source = cause.source();
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` cut to at most 240 characters.
fn shorten(text: &str) -> String {
    match text.char_indices().nth(240) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// An error and its causes on one line, shortened.
fn one_line(error: &dyn std::error::Error) -> String {
    shorten(&flat(error))
}
