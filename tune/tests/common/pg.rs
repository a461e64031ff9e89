//! A throwaway PostgreSQL cluster for tests: `initdb` in a temporary directory, the
//! server listening on loopback only (a free port) and on a socket in that directory,
//! stopped and removed on drop. PostgreSQL refuses to run as root, so under root (CI)
//! the server runs as the `postgres` user (or `nobody`) that owns the directory.
//! `PgCluster::start` fails when PostgreSQL is not installed; the `*_or_skip` helpers
//! pass that to `tb_support::test_gate::skip`, which fails the test under `CI=true`.
//!
//! The one set-up of every PostgreSQL test: `tune/tests/postgres.rs` and
//! `tools/tests/tb_tune_fleet.rs` both include this file (`#[path]`).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub struct PgCluster {
    dir: tempfile::TempDir,
    bin: PathBuf,
    pub port: u16,
    /// Run as this user (root only).
    user: Option<String>,
    /// Password of the `tb` role with password authentication, `None` with trust.
    pub password: Option<String>,
}

/// The newest installed PostgreSQL's binaries.
fn bin_dir() -> Option<PathBuf> {
    let mut dirs: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let version: u32 = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    dirs.sort();
    dirs.pop().map(|(_, b)| b)
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .expect("a loopback port")
        .local_addr()
        .expect("an address")
        .port()
}

fn account(name: &str) -> Option<(u32, u32)> {
    let c = std::ffi::CString::new(name).ok()?;
    // SAFETY: getpwnam returns static storage or null; the ids are copied at once.
    unsafe {
        let pw = libc::getpwnam(c.as_ptr());
        (!pw.is_null()).then(|| ((*pw).pw_uid, (*pw).pw_gid))
    }
}

/// The cluster tests of one binary share while any of them runs.
static SHARED: std::sync::Mutex<std::sync::Weak<PgCluster>> =
    std::sync::Mutex::new(std::sync::Weak::new());

/// The TLS cluster of the tests of one binary, with its certificates.
static SHARED_TLS: std::sync::Mutex<std::sync::Weak<(PgCluster, TlsFiles)>> =
    std::sync::Mutex::new(std::sync::Weak::new());

/// Certificates made by the `openssl` tool: a CA, the server's certificate (for
/// 127.0.0.1 only) signed by it, and an unrelated CA.
pub struct TlsFiles {
    pub ca: PathBuf,
    pub server_cert: PathBuf,
    pub server_key: PathBuf,
    pub other_ca: PathBuf,
}

fn openssl(dir: &Path, args: &[&str]) -> Result<(), String> {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run openssl (Debian package openssl): {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "openssl {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(())
}

impl TlsFiles {
    pub fn generate(dir: &Path) -> Result<TlsFiles, String> {
        let key = [
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
        ];
        for (name, subject) in [
            ("ca", "/CN=tb-tune test CA"),
            ("other_ca", "/CN=unrelated CA"),
        ] {
            let (k, c) = (format!("{name}.key"), format!("{name}.pem"));
            let mut args = vec!["req", "-x509"];
            args.extend(key);
            args.extend(["-keyout", &k, "-out", &c, "-days", "2", "-subj", subject]);
            openssl(dir, &args)?;
        }
        let mut args = vec!["req"];
        args.extend(key);
        args.extend([
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
            "-subj",
            "/CN=tb-tune test server",
        ]);
        openssl(dir, &args)?;
        std::fs::write(dir.join("san.cnf"), "subjectAltName = IP:127.0.0.1\n")
            .map_err(|e| e.to_string())?;
        openssl(
            dir,
            &[
                "x509",
                "-req",
                "-in",
                "server.csr",
                "-CA",
                "ca.pem",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-out",
                "server.pem",
                "-days",
                "2",
                "-extfile",
                "san.cnf",
            ],
        )?;
        Ok(TlsFiles {
            ca: dir.join("ca.pem"),
            server_cert: dir.join("server.pem"),
            server_key: dir.join("server.key"),
            other_ca: dir.join("other_ca.pem"),
        })
    }
}

/// The cluster shared by the tests of this binary, or `None` once the test is skipped
/// (PostgreSQL missing; under `CI=true` the skip fails the test).
pub fn shared_or_skip(test: &str) -> Option<std::sync::Arc<PgCluster>> {
    PgCluster::shared()
        .map_err(|why| tb_support::test_gate::skip(test, why))
        .ok()
}

/// The shared TLS cluster and its certificates, or `None` once the test is skipped.
pub fn shared_tls_or_skip(test: &str) -> Option<std::sync::Arc<(PgCluster, TlsFiles)>> {
    PgCluster::shared_tls()
        .map_err(|why| tb_support::test_gate::skip(test, why))
        .ok()
}

/// A cluster of the test's own (one it stops, or one with a password: see `start_with`),
/// or `None` once the test is skipped.
pub fn own_or_skip(test: &str, password: Option<&str>) -> Option<PgCluster> {
    PgCluster::start_with(password)
        .map_err(|why| tb_support::test_gate::skip(test, why))
        .ok()
}

/// A cluster of the test's own with TLS and password login over TLS only (see
/// `start_tls_with_password`), or `None` once the test is skipped.
pub fn tls_with_password_or_skip(test: &str, password: &str) -> Option<(PgCluster, TlsFiles)> {
    PgCluster::start_tls_with_password(password)
        .map_err(|why| tb_support::test_gate::skip(test, why))
        .ok()
}

impl PgCluster {
    /// A cluster shared by the tests that run at the same time (each creates its own
    /// database in it): started by the first, stopped when the last one drops it.
    pub fn shared() -> Result<std::sync::Arc<PgCluster>, String> {
        let mut shared = SHARED.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(cluster) = shared.upgrade() {
            return Ok(cluster);
        }
        let cluster = std::sync::Arc::new(PgCluster::start()?);
        *shared = std::sync::Arc::downgrade(&cluster);
        Ok(cluster)
    }

    /// A cluster with TLS on (see `enable_tls`), shared like `shared`.
    pub fn shared_tls() -> Result<std::sync::Arc<(PgCluster, TlsFiles)>, String> {
        let mut shared = SHARED_TLS.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(cluster) = shared.upgrade() {
            return Ok(cluster);
        }
        let cluster = PgCluster::start()?;
        let files = TlsFiles::generate(cluster.dir())?;
        cluster.enable_tls(&files)?;
        let both = std::sync::Arc::new((cluster, files));
        *shared = std::sync::Arc::downgrade(&both);
        Ok(both)
    }

    /// Turns TLS on with the server certificate of `files` (a reload, no restart).
    pub fn enable_tls(&self, files: &TlsFiles) -> Result<(), String> {
        if let Some(name) = &self.user {
            // The server reads its key as its own user, and only from a private file.
            let (uid, gid) = account(name).expect("found at start");
            for path in [&files.server_cert, &files.server_key] {
                std::os::unix::fs::chown(path, Some(uid), Some(gid)).map_err(|e| e.to_string())?;
            }
        }
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&files.server_key, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| e.to_string())?;
        let port = self.port.to_string();
        let cert = format!(
            "ALTER SYSTEM SET ssl_cert_file = '{}'",
            files.server_cert.display()
        );
        let key = format!(
            "ALTER SYSTEM SET ssl_key_file = '{}'",
            files.server_key.display()
        );
        self.run(
            "psql",
            &[
                "-h",
                "127.0.0.1",
                "-p",
                &port,
                "-U",
                "tb",
                "-d",
                "postgres",
                "-v",
                "ON_ERROR_STOP=1",
                "-c",
                &cert,
                "-c",
                &key,
                "-c",
                "ALTER SYSTEM SET ssl = on",
                "-c",
                "SELECT pg_reload_conf()",
            ],
        )?;
        // The server rereads its configuration soon after, not at once.
        let require = format!("host=127.0.0.1 port={port} user=tb dbname=postgres sslmode=require");
        let mut last = String::new();
        for _ in 0..100 {
            match self.run("psql", &[&require, "-c", "SELECT 1"]) {
                Ok(()) => return Ok(()),
                Err(e) => last = e,
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        Err(format!("the server did not turn TLS on: {last}"))
    }

    /// A cluster of its own with TLS on where the `tb` role logs in with `password`
    /// (scram-sha-256) over TLS only: `hostssl` lines, loopback in the clear rejected.
    pub fn start_tls_with_password(password: &str) -> Result<(PgCluster, TlsFiles), String> {
        let cluster = PgCluster::start_with(Some(password))?;
        let files = TlsFiles::generate(cluster.dir())?;
        cluster.enable_tls(&files)?;
        // Rewritten in place, so the file keeps its owner (the server's user).
        std::fs::write(
            cluster.data().join("pg_hba.conf"),
            "local all all scram-sha-256\n\
             hostssl all all 127.0.0.1/32 scram-sha-256\n\
             hostnossl all all 127.0.0.1/32 reject\n",
        )
        .map_err(|e| e.to_string())?;
        cluster.run(
            "pg_ctl",
            &["-D", cluster.data().to_str().expect("utf-8 path"), "reload"],
        )?;
        // The reload takes effect soon after, not at once.
        let clear = format!(
            "host=127.0.0.1 port={} user=tb dbname=postgres sslmode=disable",
            cluster.port
        );
        for _ in 0..100 {
            if cluster.run("psql", &[&clear, "-c", "SELECT 1"]).is_err() {
                return Ok((cluster, files));
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        Err("the server still accepts logins in the clear after the reload".into())
    }

    /// Starts a cluster whose `tb` role logs in without a password over loopback.
    pub fn start() -> Result<PgCluster, String> {
        PgCluster::start_with(None)
    }

    /// Starts a cluster; with `password`, the `tb` role must give it (scram-sha-256).
    pub fn start_with(password: Option<&str>) -> Result<PgCluster, String> {
        let bin = bin_dir().ok_or(
            "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb; Debian package postgresql)",
        )?;
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        let user = if root {
            let name = ["postgres", "nobody"]
                .into_iter()
                .find(|n| account(n).is_some())
                .ok_or("running as root and neither a postgres nor a nobody account exists")?;
            Some(name.to_string())
        } else {
            None
        };
        let pwfile = dir.path().join("pwfile");
        std::fs::write(&pwfile, password.unwrap_or("unused")).map_err(|e| e.to_string())?;
        if let Some(name) = &user {
            let (uid, gid) = account(name).expect("found above");
            for path in [dir.path(), pwfile.as_path()] {
                std::os::unix::fs::chown(path, Some(uid), Some(gid)).map_err(|e| e.to_string())?;
            }
        }
        let cluster = PgCluster {
            dir,
            bin,
            port: free_port(),
            user,
            password: password.map(str::to_owned),
        };
        let auth = if password.is_some() {
            "scram-sha-256"
        } else {
            "trust"
        };
        cluster.run(
            "initdb",
            &[
                "-D",
                cluster.data().to_str().expect("utf-8 path"),
                "-U",
                "tb",
                "--auth",
                auth,
                "--pwfile",
                pwfile.to_str().expect("utf-8 path"),
                "-E",
                "UTF8",
                "--no-sync",
                "--no-instructions",
            ],
        )?;
        cluster.start_server()?;
        Ok(cluster)
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn command(&self, tool: &str) -> Command {
        let program = self.bin.join(tool);
        match &self.user {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(program);
                c
            }
            None => Command::new(program),
        }
    }

    fn run(&self, tool: &str, args: &[&str]) -> Result<(), String> {
        let mut command = self.command(tool);
        if let Some(password) = &self.password {
            command.env("PGPASSWORD", password);
        }
        let out = command
            .args(args)
            .current_dir(self.dir.path())
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run {tool}: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "{tool} failed: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(())
    }

    /// Starts the server (after `stop`).
    pub fn start_server(&self) -> Result<(), String> {
        let options = format!(
            "-p {} -c listen_addresses=127.0.0.1 -c unix_socket_directories={} -c fsync=off -c max_connections=60",
            self.port,
            self.dir.path().display()
        );
        let log = self.dir.path().join("server.log");
        self.run(
            "pg_ctl",
            &[
                "-D",
                self.data().to_str().expect("utf-8 path"),
                "-o",
                &options,
                "-l",
                log.to_str().expect("utf-8 path"),
                "-w",
                "-t",
                "60",
                "start",
            ],
        )
    }

    /// Stops the server at once (as a crash would: open connections are cut).
    pub fn stop(&self) -> Result<(), String> {
        self.run(
            "pg_ctl",
            &[
                "-D",
                self.data().to_str().expect("utf-8 path"),
                "-m",
                "immediate",
                "-w",
                "stop",
            ],
        )
    }

    /// Creates a new database named after `name` (tests sharing the cluster never get the
    /// same one) and returns its location.
    pub fn database(&self, name: &str) -> Result<String, String> {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let name = format!(
            "{name}_{}",
            NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
        );
        let name = name.as_str();
        self.run(
            "createdb",
            &[
                "-h",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-U",
                "tb",
                name,
            ],
        )?;
        Ok(self.location(name))
    }

    pub fn location(&self, name: &str) -> String {
        format!("postgres://tb@127.0.0.1:{}/{name}", self.port)
    }

    pub fn dir(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for PgCluster {
    fn drop(&mut self) {
        let _ = self.stop();
    }
}
