//! Connecting to a PostgreSQL tuning database: `postgres://[user@]host[:port]/dbname`
//! (or libpq's `key=value` form).
//!
//! Credentials never travel on the command line: a location that carries a password is
//! refused, and the password comes from `PGPASSWORD` or from the password file
//! (`PGPASSFILE`, else `~/.pgpass`; lines `host:port:database:user:password`, `*`
//! matching anything, `\:` and `\\` escaped), as with libpq. The user defaults to
//! `PGUSER`, then the login name. TLS follows libpq's `sslmode` and `sslrootcert` (see
//! `tls.rs`).

use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use postgres::config::{Host, SslMode};
use postgres::{Client, Config, NoTls};

use super::tls::{self, TlsSettings};

/// Whether `location` names a PostgreSQL database rather than a SQLite file.
pub fn is_postgres(location: &str) -> bool {
    location.starts_with("postgres://") || location.starts_with("postgresql://")
}

/// The connection settings of `location`, with the password looked up, and its TLS
/// settings.
pub fn config(location: &str) -> Result<(Config, TlsSettings), String> {
    let split = tls::split_location(location)?;
    let mut config =
        Config::from_str(&split.rest).map_err(|e| format!("not a PostgreSQL location: {e}"))?;
    if config.get_password().is_some() {
        return Err(
            "a password in the database location is refused (it would show in process lists and logs): put it in PGPASSWORD or ~/.pgpass"
                .into(),
        );
    }
    let tls = tls::settings(split.sslmode.as_deref(), split.sslrootcert.as_deref())?;
    if config.get_user().is_none() {
        let user = std::env::var("PGUSER")
            .ok()
            .or_else(|| std::env::var("USER").ok())
            .or_else(login_name)
            .ok_or("no user in the location, and neither PGUSER nor USER is set")?;
        config.user(&user);
    }
    if config.get_hosts().is_empty() {
        match std::env::var("PGHOST") {
            Ok(host) => {
                config.host(&host);
            }
            Err(_) => {
                config.host_path("/var/run/postgresql");
            }
        }
    }
    if config.get_dbname().is_none() {
        let user = config.get_user().unwrap_or_default().to_string();
        config.dbname(&user);
    }
    if let Some(password) = password(&config) {
        config.password(password);
    }
    config.connect_timeout(Duration::from_secs(10));
    config.application_name("tb-tune");
    // The server offers no TLS on a socket; libpq then connects in the clear whatever the
    // mode, and so do we.
    let sockets_only = config
        .get_hosts()
        .iter()
        .all(|h| matches!(h, Host::Unix(_)));
    config.ssl_mode(if sockets_only {
        SslMode::Disable
    } else {
        tls.client_mode()
    });
    Ok((config, tls))
}

/// Connects to `location`.
pub fn connect(location: &str) -> Result<Client, String> {
    let (config, tls) = config(location)?;
    let connector = match config.get_ssl_mode() {
        SslMode::Disable => None,
        _ => tls.connector()?,
    };
    let connected = match connector {
        Some(connector) => config.connect(connector),
        None => config.connect(NoTls),
    };
    connected.map_err(|e| tls.explain(super::sql::pg_error(&e)))
}

fn login_name() -> Option<String> {
    // SAFETY: getpwuid returns a pointer into static storage or null; the name is copied
    // before any other call.
    unsafe {
        let pw = libc::getpwuid(libc::geteuid());
        if pw.is_null() {
            return None;
        }
        Some(
            std::ffi::CStr::from_ptr((*pw).pw_name)
                .to_string_lossy()
                .into_owned(),
        )
    }
}

fn password(config: &Config) -> Option<String> {
    if let Ok(p) = std::env::var("PGPASSWORD") {
        return Some(p);
    }
    let file = std::env::var_os("PGPASSFILE")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".pgpass")))?;
    let text = std::fs::read_to_string(file).ok()?;
    let host = match config.get_hosts().first() {
        Some(Host::Tcp(h)) => h.clone(),
        // libpq matches a socket directory as `localhost`.
        Some(Host::Unix(_)) | None => "localhost".into(),
    };
    let port = config
        .get_ports()
        .first()
        .copied()
        .unwrap_or(5432)
        .to_string();
    let wanted = [
        host.as_str(),
        port.as_str(),
        config.get_dbname().unwrap_or_default(),
        config.get_user().unwrap_or_default(),
    ];
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let fields = pgpass_fields(l);
            (fields.len() == 5).then_some(fields)
        })
        .find(|fields| {
            fields[..4]
                .iter()
                .zip(wanted)
                .all(|(pattern, value)| pattern == "*" || pattern == value)
        })
        .map(|fields| fields[4].clone())
}

/// Splits a `.pgpass` line at unescaped colons.
pub fn pgpass_fields(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(next) = chars.next() {
                    fields.last_mut().expect("one field").push(next);
                }
            }
            ':' => fields.push(String::new()),
            c => fields.last_mut().expect("one field").push(c),
        }
    }
    fields
}

/// `location` with any password removed, for messages.
pub fn display(location: &str) -> String {
    match location.split_once("://") {
        Some((scheme, rest)) => match rest.split_once('@') {
            Some((credentials, host)) => {
                let user = credentials.split(':').next().unwrap_or("");
                format!("{scheme}://{user}@{host}")
            }
            None => location.to_string(),
        },
        None => location.to_string(),
    }
}
