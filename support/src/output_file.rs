//! Output files that never replace what they are meant to write into.
//!
//! What a user names with `-o` decides how it is written, as users of `mlir-opt` and
//! `mlir-translate` expect:
//!
//! - `-` is standard output;
//! - an existing character or block device, or a FIFO, is opened and written in place: it is
//!   never truncated by a rename, replaced or removed (`-o /dev/null` run as root must leave
//!   `/dev/null` a device);
//! - a Unix socket is connected to and written to;
//! - a symbolic link is followed to its final target (as the kernel does, at most 40 links)
//!   and the target is written by these same rules; the link itself stays;
//! - a regular file, or a path that does not exist yet, is written all at once or not at
//!   all: the bytes go to a temporary file in the same directory, which replaces the
//!   destination by a rename only when the output is committed. A replaced file keeps its
//!   permission bits (and its owner, where the process may set it). An output that is
//!   dropped without being committed (an error, a panic) removes its temporary file, so no
//!   partial regular file is ever left behind.
//!
//! Bytes for in-place destinations (standard output, devices, FIFOs, sockets) are held until
//! commit, so a run that fails before committing writes nothing anywhere. [`OutputSet`]
//! extends the all-or-nothing rule to every file one run writes.

use std::fmt;
use std::fs::{self, OpenOptions, Permissions};
use std::io::{self, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::Once;

use tempfile::NamedTempFile;

/// How many symbolic links are followed before giving up, as Linux's `MAXSYMLINKS`.
const MAX_SYMLINK_HOPS: usize = 40;

/// An output that could not be opened, written or committed, with the path the user gave.
#[derive(Debug)]
pub struct OutputError {
    path: PathBuf,
    message: String,
    kind: Option<io::ErrorKind>,
}

impl OutputError {
    fn new(path: &Path, message: impl Into<String>) -> Self {
        OutputError {
            path: path.to_path_buf(),
            message: message.into(),
            kind: None,
        }
    }

    fn io(path: &Path, error: &io::Error) -> Self {
        OutputError {
            kind: Some(error.kind()),
            ..OutputError::new(path, error.to_string())
        }
    }

    /// Whether the reader went away (`tool | head`), which tools treat as success.
    pub fn is_broken_pipe(&self) -> bool {
        self.kind == Some(io::ErrorKind::BrokenPipe)
    }

    /// The path as the user gave it.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl fmt::Display for OutputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot write '{}': {}",
            self.path.display(),
            self.message
        )
    }
}

impl std::error::Error for OutputError {}

/// Where an [`OutputFile`]'s bytes go.
enum Sink {
    /// Standard output, a device, a FIFO or a socket: written when committed.
    InPlace {
        target: InPlaceTarget,
        pending: Vec<u8>,
    },
    /// A regular file (or a new one): a temporary file renamed over `destination`.
    Staged {
        temporary: NamedTempFile,
        destination: PathBuf,
    },
}

enum InPlaceTarget {
    Stdout,
    /// A device or FIFO at this path, opened when committed.
    Special(PathBuf),
    Socket(PathBuf),
}

/// One output, opened by [`OutputFile::create`], written through [`Write`], and made visible
/// by [`OutputFile::commit`]. Dropping it uncommitted leaves the destination as it was.
pub struct OutputFile {
    path: PathBuf,
    sink: Sink,
}

impl OutputFile {
    /// Opens `path` for output, following the rules in the [module documentation](self).
    /// Errors that can be known before writing (a directory, a missing or read-only parent
    /// directory, a symlink loop) are reported here.
    pub fn create(path: impl AsRef<Path>) -> Result<OutputFile, OutputError> {
        ignore_file_size_signal();
        let path = path.as_ref();
        let sink = if path.as_os_str() == "-" {
            in_place(InPlaceTarget::Stdout)
        } else {
            open_sink(path)?
        };
        Ok(OutputFile {
            path: path.to_path_buf(),
            sink,
        })
    }

    /// The path as given to [`OutputFile::create`].
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// An error about this output, for a failed [`Write`] call.
    pub fn error(&self, error: &io::Error) -> OutputError {
        OutputError::io(&self.path, error)
    }

    /// Makes the written bytes visible at the destination: writes them to standard output,
    /// the device, FIFO or socket, or renames the temporary file over the regular file.
    pub fn commit(self) -> Result<(), OutputError> {
        let path = self.path;
        match self.sink {
            Sink::InPlace { target, pending } => {
                write_in_place(&target, &pending).map_err(|e| OutputError::io(&path, &e))
            }
            Sink::Staged {
                temporary,
                destination,
            } => temporary
                .persist(&destination)
                .map(drop)
                // The temporary file inside the error is removed when it is dropped here.
                .map_err(|e| OutputError::io(&path, &e.error)),
        }
    }

    fn is_in_place(&self) -> bool {
        matches!(self.sink, Sink::InPlace { .. })
    }
}

impl Write for OutputFile {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        match &mut self.sink {
            Sink::InPlace { pending, .. } => {
                pending.extend_from_slice(bytes);
                Ok(bytes.len())
            }
            Sink::Staged { temporary, .. } => temporary.write(bytes),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.sink {
            Sink::InPlace { .. } => Ok(()),
            Sink::Staged { temporary, .. } => temporary.flush(),
        }
    }
}

/// Writes `bytes` to `path` as one output: all of it, or (on any error) nothing.
pub fn write_output(path: impl AsRef<Path>, bytes: &[u8]) -> Result<(), OutputError> {
    let mut output = OutputFile::create(path)?;
    output.write_all(bytes).map_err(|e| output.error(&e))?;
    output.commit()
}

/// Every file one run writes, committed together: nothing becomes visible until every output
/// has been written in full, so a failure on the third file leaves the first two as they were.
#[derive(Default)]
pub struct OutputSet {
    outputs: Vec<OutputFile>,
}

impl OutputSet {
    pub fn new() -> Self {
        OutputSet::default()
    }

    /// Writes `bytes` for `path`; nothing is visible there before [`OutputSet::commit`].
    pub fn write(&mut self, path: impl AsRef<Path>, bytes: &[u8]) -> Result<(), OutputError> {
        let mut output = OutputFile::create(path)?;
        output.write_all(bytes).map_err(|e| output.error(&e))?;
        self.outputs.push(output);
        Ok(())
    }

    /// Adds an output the caller has written itself.
    pub fn push(&mut self, output: OutputFile) {
        self.outputs.push(output);
    }

    /// Commits every output. In-place destinations go first: they are the ones that can
    /// still fail (a full device, a closed socket), and a failure there leaves every regular
    /// file untouched. The renames that follow fail only if the file system does.
    pub fn commit(self) -> Result<(), OutputError> {
        let (in_place, staged): (Vec<_>, Vec<_>) =
            self.outputs.into_iter().partition(|o| o.is_in_place());
        in_place
            .into_iter()
            .chain(staged)
            .try_for_each(OutputFile::commit)
    }
}

fn in_place(target: InPlaceTarget) -> Sink {
    Sink::InPlace {
        target,
        pending: Vec::new(),
    }
}

/// Decides how `path` is written, from what is at its final symlink target.
fn open_sink(path: &Path) -> Result<Sink, OutputError> {
    let (destination, existing) = follow_symlinks(path).map_err(|e| OutputError::io(path, &e))?;
    let Some(metadata) = existing else {
        return staged(path, destination, None);
    };
    let kind = metadata.file_type();
    if kind.is_file() {
        staged(path, destination, Some(&metadata))
    } else if kind.is_dir() {
        Err(OutputError::new(path, "it is a directory"))
    } else if kind.is_char_device() || kind.is_block_device() || kind.is_fifo() {
        Ok(in_place(InPlaceTarget::Special(destination)))
    } else if kind.is_socket() {
        Ok(in_place(InPlaceTarget::Socket(destination)))
    } else {
        Err(OutputError::new(
            path,
            "it is not a file that can be written",
        ))
    }
}

/// The final target of `path` after following symbolic links, with its metadata if it
/// exists. A relative link is read relative to the directory holding the link.
fn follow_symlinks(path: &Path) -> io::Result<(PathBuf, Option<fs::Metadata>)> {
    let mut current = path.to_path_buf();
    for _ in 0..=MAX_SYMLINK_HOPS {
        match fs::symlink_metadata(&current) {
            Ok(metadata) if metadata.file_type().is_symlink() => {
                let target = fs::read_link(&current)?;
                current = match current.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            Ok(metadata) => return Ok((current, Some(metadata))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((current, None)),
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::other("too many levels of symbolic links"))
}

/// A temporary file next to `destination`, with the permissions (and, when allowed, the
/// owner) of the file it will replace.
fn staged(
    path: &Path,
    destination: PathBuf,
    existing: Option<&fs::Metadata>,
) -> Result<Sink, OutputError> {
    let Some(name) = destination.file_name() else {
        return Err(OutputError::new(path, "the path names no file"));
    };
    let directory = match destination.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(name);
    prefix.push(".");
    // 0o666 less the umask: what a newly created output file gets anyway.
    let temporary = tempfile::Builder::new()
        .prefix(&prefix)
        .suffix(".tmp")
        .permissions(Permissions::from_mode(0o666))
        .tempfile_in(directory)
        .map_err(|e| {
            OutputError::new(
                path,
                format!(
                    "cannot create a file in '{}': {}",
                    directory.display(),
                    strip_path_suffix(&e)
                ),
            )
        })?;
    if let Some(metadata) = existing {
        fs::set_permissions(temporary.path(), metadata.permissions())
            .map_err(|e| OutputError::io(path, &e))?;
        // Only a privileged process can give a file away; otherwise the file is ours.
        let _ = std::os::unix::fs::fchown(
            temporary.as_file(),
            Some(metadata.uid()),
            Some(metadata.gid()),
        );
    }
    Ok(Sink::Staged {
        temporary,
        destination,
    })
}

/// tempfile's errors append the temporary path, which means nothing to the user.
fn strip_path_suffix(error: &io::Error) -> String {
    let text = error.to_string();
    match text.find(" at path ") {
        Some(at) => text[..at].to_owned(),
        None => text,
    }
}

fn write_in_place(target: &InPlaceTarget, bytes: &[u8]) -> io::Result<()> {
    match target {
        InPlaceTarget::Stdout => {
            let mut out = io::stdout().lock();
            out.write_all(bytes)?;
            out.flush()
        }
        InPlaceTarget::Special(path) => {
            // No create, no truncate: the node is written as it is.
            let mut device = OpenOptions::new().write(true).open(path)?;
            device.write_all(bytes)?;
            device.flush()
        }
        InPlaceTarget::Socket(path) => {
            let mut stream = UnixStream::connect(path)?;
            stream.write_all(bytes)?;
            stream.flush()
        }
    }
}

/// Writing past the file-size limit (`ulimit -f`) raises SIGXFSZ, which kills the process
/// before it can remove its temporary file. Ignored, the write fails with EFBIG instead, and
/// the output is cleaned up like any other failed write.
fn ignore_file_size_signal() {
    static IGNORE: Once = Once::new();
    IGNORE.call_once(|| {
        // SAFETY: setting a signal's disposition to SIG_IGN installs no handler code.
        unsafe {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
        }
    });
}
