//! TLS to the PostgreSQL server, with libpq's settings: `sslmode` (`disable`, `prefer`,
//! `require`, `verify-ca`, `verify-full`) and `sslrootcert` from the location, else
//! `PGSSLMODE` and `PGSSLROOTCERT`, else `prefer` and `~/.postgresql/root.crt`.
//!
//! As in libpq, `prefer` and `require` encrypt without checking who answers, except that
//! `require` checks the server's chain when a root certificate file exists; `verify-ca`
//! checks the chain against the root certificates, `verify-full` also the server's name
//! (or IP address) against its certificate. `sslrootcert=system` trusts the system's
//! roots. A socket connection never uses TLS (the server does not offer it there).
//!
//! The client crate knows neither `verify-*` nor `sslrootcert`, so both are taken out of
//! the location before it is parsed.

use std::path::PathBuf;

/// libpq's `sslmode` (without `allow`, which tries plain text first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SslMode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl SslMode {
    pub fn parse(text: &str) -> Result<SslMode, String> {
        Ok(match text {
            "disable" => SslMode::Disable,
            "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            other => {
                return Err(format!(
                    "sslmode={other} is not supported: use disable, prefer, require, verify-ca or verify-full"
                ));
            }
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            SslMode::Disable => "disable",
            SslMode::Prefer => "prefer",
            SslMode::Require => "require",
            SslMode::VerifyCa => "verify-ca",
            SslMode::VerifyFull => "verify-full",
        }
    }
}

/// Which certificates a verifying connection trusts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RootCert {
    /// None named and no `~/.postgresql/root.crt`.
    None,
    /// A PEM file of one or more certificates.
    File(PathBuf),
    /// The system's trusted roots (`sslrootcert=system`).
    System,
}

/// The TLS settings of one location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlsSettings {
    pub mode: SslMode,
    pub root_cert: RootCert,
}

/// The TLS options named in a location, and the location without them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitLocation {
    pub rest: String,
    pub sslmode: Option<String>,
    pub sslrootcert: Option<String>,
}

/// Takes `sslmode` and `sslrootcert` out of a `postgres://` URL (query parameters) or a
/// `key=value` location.
pub fn split_location(location: &str) -> Result<SplitLocation, String> {
    let mut split = SplitLocation {
        rest: String::new(),
        sslmode: None,
        sslrootcert: None,
    };
    let mut take = |key: &str, value: String| match key {
        "sslmode" => {
            split.sslmode = Some(value);
            true
        }
        "sslrootcert" => {
            split.sslrootcert = Some(value);
            true
        }
        _ => false,
    };
    let rest = if location.starts_with("postgres://") || location.starts_with("postgresql://") {
        match location.split_once('?') {
            None => location.to_string(),
            Some((base, query)) => {
                let mut kept = Vec::new();
                for pair in query.split('&').filter(|p| !p.is_empty()) {
                    let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
                    if !take(key, percent_decode(value)?) {
                        kept.push(pair);
                    }
                }
                if kept.is_empty() {
                    base.to_string()
                } else {
                    format!("{base}?{}", kept.join("&"))
                }
            }
        }
    } else {
        let mut kept = Vec::new();
        for (span, key, value) in key_value_pairs(location)? {
            if !take(&key, value) {
                kept.push(&location[span]);
            }
        }
        kept.join(" ")
    };
    split.rest = rest;
    Ok(split)
}

fn percent_decode(text: &str) -> Result<String, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("a bad %-escape in '{text}'"))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| format!("'{text}' is not UTF-8 once decoded"))
}

/// The `key = value` pairs of a libpq location with their byte spans: values are bare
/// (ending at white space) or single-quoted, with `\` escaping the next character.
fn key_value_pairs(
    location: &str,
) -> Result<Vec<(std::ops::Range<usize>, String, String)>, String> {
    let chars: Vec<(usize, char)> = location.char_indices().collect();
    let at = |i: usize| chars.get(i).map(|&(_, c)| c);
    let offset = |i: usize| chars.get(i).map_or(location.len(), |&(o, _)| o);
    let mut pairs = Vec::new();
    let mut i = 0;
    loop {
        while at(i).is_some_and(char::is_whitespace) {
            i += 1;
        }
        if at(i).is_none() {
            return Ok(pairs);
        }
        let start = i;
        let mut key = String::new();
        while let Some(c) = at(i).filter(|c| *c != '=' && !c.is_whitespace()) {
            key.push(c);
            i += 1;
        }
        while at(i).is_some_and(char::is_whitespace) {
            i += 1;
        }
        if at(i) != Some('=') {
            return Err(format!("'{key}' has no '=' in the database location"));
        }
        i += 1;
        while at(i).is_some_and(char::is_whitespace) {
            i += 1;
        }
        let mut value = String::new();
        if at(i) == Some('\'') {
            i += 1;
            loop {
                match at(i) {
                    None => return Err(format!("the value of '{key}' has no closing quote")),
                    Some('\'') => {
                        i += 1;
                        break;
                    }
                    Some('\\') => {
                        value.extend(at(i + 1));
                        i += 2;
                    }
                    Some(c) => {
                        value.push(c);
                        i += 1;
                    }
                }
            }
        } else {
            while let Some(c) = at(i).filter(|c| !c.is_whitespace()) {
                if c == '\\' {
                    value.extend(at(i + 1));
                    i += 2;
                } else {
                    value.push(c);
                    i += 1;
                }
            }
        }
        pairs.push((offset(start)..offset(i), key, value));
    }
}

/// The settings from the location's options, else the environment, else the defaults.
pub fn settings(sslmode: Option<&str>, sslrootcert: Option<&str>) -> Result<TlsSettings, String> {
    let from_env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let mode = match sslmode.map(str::to_owned).or_else(|| from_env("PGSSLMODE")) {
        Some(text) => SslMode::parse(&text)?,
        None => SslMode::Prefer,
    };
    let named = sslrootcert
        .map(str::to_owned)
        .or_else(|| from_env("PGSSLROOTCERT"));
    let root_cert = match named.as_deref() {
        Some("system") => RootCert::System,
        Some(path) => RootCert::File(PathBuf::from(path)),
        None => match std::env::var_os("HOME") {
            Some(home) => {
                let default = PathBuf::from(home).join(".postgresql/root.crt");
                if default.exists() {
                    RootCert::File(default)
                } else {
                    RootCert::None
                }
            }
            None => RootCert::None,
        },
    };
    Ok(TlsSettings { mode, root_cert })
}

impl TlsSettings {
    /// Whether the server's certificate chain is checked.
    pub fn verifies_chain(&self) -> bool {
        match self.mode {
            SslMode::VerifyCa | SslMode::VerifyFull => true,
            // libpq: `require` with a root certificate file behaves as `verify-ca`.
            SslMode::Require => matches!(self.root_cert, RootCert::File(_)),
            SslMode::Disable | SslMode::Prefer => false,
        }
    }

    /// The client crate's mode: it only knows whether TLS is required.
    pub fn client_mode(&self) -> postgres::config::SslMode {
        match self.mode {
            SslMode::Disable => postgres::config::SslMode::Disable,
            SslMode::Prefer => postgres::config::SslMode::Prefer,
            SslMode::Require | SslMode::VerifyCa | SslMode::VerifyFull => {
                postgres::config::SslMode::Require
            }
        }
    }

    /// The connector; `None` for `disable`.
    pub fn connector(&self) -> Result<Option<postgres_native_tls::MakeTlsConnector>, String> {
        if self.mode == SslMode::Disable {
            return Ok(None);
        }
        let mut builder = native_tls::TlsConnector::builder();
        if self.verifies_chain() {
            match &self.root_cert {
                RootCert::System => {}
                RootCert::File(path) => {
                    let pem = std::fs::read(path).map_err(|e| {
                        format!(
                            "sslmode={}: cannot read the root certificate file {}: {e}",
                            self.mode.as_str(),
                            path.display()
                        )
                    })?;
                    let certs = native_tls::Certificate::stack_from_pem(&pem).map_err(|e| {
                        format!(
                            "the root certificate file {} is not PEM certificates: {e}",
                            path.display()
                        )
                    })?;
                    if certs.is_empty() {
                        return Err(format!(
                            "the root certificate file {} holds no certificate",
                            path.display()
                        ));
                    }
                    builder.disable_built_in_roots(true);
                    for cert in certs {
                        builder.add_root_certificate(cert);
                    }
                }
                RootCert::None => {
                    return Err(format!(
                        "sslmode={} checks the server's certificate, but there is no root certificate: set sslrootcert in the location or PGSSLROOTCERT, or put it in ~/.postgresql/root.crt (sslrootcert=system trusts the system's roots)",
                        self.mode.as_str()
                    ));
                }
            }
            builder.danger_accept_invalid_hostnames(self.mode != SslMode::VerifyFull);
        } else {
            // prefer and require only encrypt (libpq's meaning): nothing is checked.
            builder.danger_accept_invalid_certs(true);
            builder.danger_accept_invalid_hostnames(true);
        }
        let connector = builder
            .build()
            .map_err(|e| format!("cannot set up TLS: {e}"))?;
        Ok(Some(postgres_native_tls::MakeTlsConnector::new(connector)))
    }

    /// `message` (a failed connection) with the TLS settings, when TLS may be the cause.
    pub fn explain(&self, message: String) -> String {
        let about_tls = ["TLS", "SSL", "certificate", "handshake"]
            .iter()
            .any(|word| message.contains(word));
        if self.mode == SslMode::Disable || !about_tls {
            return message;
        }
        let root = match &self.root_cert {
            RootCert::File(path) if self.verifies_chain() => {
                format!(", root certificate {}", path.display())
            }
            RootCert::System if self.verifies_chain() => ", the system's root certificates".into(),
            _ => String::new(),
        };
        format!("{message} (sslmode={}{root})", self.mode.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_options_are_taken_out_and_decoded() {
        let split = split_location(
            "postgres://tb@db:5432/tuning?connect_timeout=5&sslmode=verify-full&sslrootcert=%2Fetc%2Fca.pem",
        )
        .unwrap();
        assert_eq!(split.rest, "postgres://tb@db:5432/tuning?connect_timeout=5");
        assert_eq!(split.sslmode.as_deref(), Some("verify-full"));
        assert_eq!(split.sslrootcert.as_deref(), Some("/etc/ca.pem"));
        let plain = split_location("postgres://tb@db/tuning?sslmode=require").unwrap();
        assert_eq!(plain.rest, "postgres://tb@db/tuning");
    }

    #[test]
    fn key_value_options_are_taken_out_with_quotes_and_escapes() {
        let split = split_location(
            "host=db sslrootcert = '/my certs/it\\'s.pem' dbname=tuning sslmode=verify-ca user=tb",
        )
        .unwrap();
        assert_eq!(split.rest, "host=db dbname=tuning user=tb");
        assert_eq!(split.sslmode.as_deref(), Some("verify-ca"));
        assert_eq!(split.sslrootcert.as_deref(), Some("/my certs/it's.pem"));
    }

    #[test]
    fn malformed_key_value_locations_are_refused() {
        assert!(split_location("host=db sslmode").is_err());
        assert!(split_location("host=db sslrootcert='/open").is_err());
        assert!(split_location("postgres://db/x?sslrootcert=%zz").is_err());
    }

    #[test]
    fn unknown_sslmodes_are_refused_by_name() {
        let e = settings(Some("allow"), None).unwrap_err();
        assert!(e.contains("sslmode=allow"), "{e}");
        assert!(settings(Some("verify"), None).is_err());
    }

    #[test]
    fn require_checks_the_chain_only_with_a_root_certificate_file() {
        let file = TlsSettings {
            mode: SslMode::Require,
            root_cert: RootCert::File("/ca.pem".into()),
        };
        assert!(file.verifies_chain());
        let none = TlsSettings {
            mode: SslMode::Require,
            root_cert: RootCert::None,
        };
        assert!(!none.verifies_chain());
        assert!(none.connector().unwrap().is_some());
    }

    #[test]
    fn verifying_without_a_root_certificate_is_refused() {
        let settings = TlsSettings {
            mode: SslMode::VerifyFull,
            root_cert: RootCert::None,
        };
        let e = settings.connector().err().unwrap();
        assert!(
            e.contains("sslmode=verify-full") && e.contains("PGSSLROOTCERT"),
            "{e}"
        );
    }

    #[test]
    fn a_missing_root_certificate_file_is_named() {
        let settings = TlsSettings {
            mode: SslMode::VerifyCa,
            root_cert: RootCert::File("/nonexistent/ca.pem".into()),
        };
        let e = settings.connector().err().unwrap();
        assert!(e.contains("/nonexistent/ca.pem"), "{e}");
    }
}
