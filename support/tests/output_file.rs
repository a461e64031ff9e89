//! What each kind of destination becomes after an output is written to it.

use std::ffi::CString;
use std::fs;
use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};

use tb_support::{OutputFile, OutputSet, write_output};

fn scratch() -> tempfile::TempDir {
    tempfile::tempdir().expect("temporary directory")
}

fn c_path(path: &Path) -> CString {
    CString::new(path.as_os_str().as_bytes()).expect("no NUL in a temporary path")
}

/// The names in `dir`, sorted: a leftover temporary file shows up here.
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

#[test]
fn new_path_is_created() {
    let dir = scratch();
    let path = dir.path().join("out.mlir");
    write_output(&path, b"module {}\n").unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"module {}\n");
    assert_eq!(entries(dir.path()), ["out.mlir"]);
}

#[test]
fn new_file_gets_the_default_permissions() {
    let dir = scratch();
    let plain = dir.path().join("plain");
    fs::write(&plain, b"").unwrap();
    let path = dir.path().join("out");
    write_output(&path, b"x").unwrap();
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&path), mode(&plain));
}

#[test]
fn existing_file_is_replaced_and_keeps_its_permissions() {
    let dir = scratch();
    let path = dir.path().join("out.mlir");
    fs::write(&path, b"old contents that are longer than the new ones").unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
    write_output(&path, b"new").unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"new");
    assert_eq!(
        fs::metadata(&path).unwrap().permissions().mode() & 0o7777,
        0o640
    );
    assert_eq!(entries(dir.path()), ["out.mlir"]);
}

#[test]
fn symlink_is_written_through_and_stays_a_link() {
    let dir = scratch();
    let target = dir.path().join("target.mlir");
    fs::write(&target, b"old").unwrap();
    let link = dir.path().join("link.mlir");
    std::os::unix::fs::symlink("target.mlir", &link).unwrap();
    write_output(&link, b"new").unwrap();
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(fs::read_link(&link).unwrap(), PathBuf::from("target.mlir"));
    assert_eq!(fs::read(&target).unwrap(), b"new");
}

#[test]
fn relative_symlink_chain_resolves_from_each_link_directory() {
    let dir = scratch();
    fs::create_dir(dir.path().join("a")).unwrap();
    fs::create_dir(dir.path().join("b")).unwrap();
    let target = dir.path().join("b/target");
    std::os::unix::fs::symlink("../b/target", dir.path().join("a/hop")).unwrap();
    std::os::unix::fs::symlink("a/hop", dir.path().join("link")).unwrap();
    write_output(dir.path().join("link"), b"through two links").unwrap();
    assert_eq!(fs::read(&target).unwrap(), b"through two links");
    assert!(
        fs::symlink_metadata(dir.path().join("a/hop"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn dangling_symlink_creates_its_target() {
    let dir = scratch();
    let link = dir.path().join("link");
    std::os::unix::fs::symlink("made.mlir", &link).unwrap();
    write_output(&link, b"made").unwrap();
    assert_eq!(fs::read(dir.path().join("made.mlir")).unwrap(), b"made");
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn symlink_loop_is_an_error() {
    let dir = scratch();
    let link = dir.path().join("loop");
    std::os::unix::fs::symlink("loop", &link).unwrap();
    let error = write_output(&link, b"x").unwrap_err();
    assert!(
        error
            .to_string()
            .contains("too many levels of symbolic links"),
        "{error}"
    );
}

#[test]
fn directory_is_an_error() {
    let dir = scratch();
    let error = write_output(dir.path(), b"x").unwrap_err();
    assert!(error.to_string().contains("it is a directory"), "{error}");
}

#[test]
fn missing_directory_is_an_error_that_names_it() {
    let dir = scratch();
    let path = dir.path().join("missing/out.mlir");
    let error = write_output(&path, b"x").unwrap_err();
    let text = error.to_string();
    assert!(
        text.starts_with(&format!("cannot write '{}'", path.display())),
        "{text}"
    );
    assert!(text.contains("missing"), "{text}");
}

#[test]
fn fifo_is_written_to_its_reader_and_stays_a_fifo() {
    let dir = scratch();
    let fifo = dir.path().join("pipe");
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c_path(&fifo).as_ptr(), 0o600) }, 0);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            fs::File::open(fifo)
                .unwrap()
                .read_to_end(&mut bytes)
                .unwrap();
            bytes
        })
    };
    write_output(&fifo, b"through the pipe").unwrap();
    assert_eq!(reader.join().unwrap(), b"through the pipe");
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    assert_eq!(entries(dir.path()), ["pipe"]);
}

#[test]
fn socket_is_connected_to_and_written() {
    let dir = scratch();
    let path = dir.path().join("sock");
    let listener = UnixListener::bind(&path).unwrap();
    let reader = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut bytes = Vec::new();
        stream.read_to_end(&mut bytes).unwrap();
        bytes
    });
    write_output(&path, b"over the socket").unwrap();
    assert_eq!(reader.join().unwrap(), b"over the socket");
    assert!(fs::symlink_metadata(&path).unwrap().file_type().is_socket());
}

/// Creates a character device node (major, minor) at `path`, or says why it cannot.
fn make_char_device(path: &Path, major: u32, minor: u32) -> Result<(), String> {
    if !is_root() {
        return Err("creating a device node needs root".to_owned());
    }
    let device = libc::makedev(major, minor);
    // SAFETY: a valid NUL-terminated path.
    let rc = unsafe { libc::mknod(c_path(path).as_ptr(), libc::S_IFCHR | 0o666, device) };
    if rc == 0 {
        Ok(())
    } else {
        Err(format!(
            "mknod failed: {} (this container may lack CAP_MKNOD)",
            std::io::Error::last_os_error()
        ))
    }
}

#[test]
fn character_device_is_written_in_place_and_never_replaced() {
    let dir = scratch();
    let null = dir.path().join("null");
    if let Err(why) = make_char_device(&null, 1, 3) {
        eprintln!("skipped character_device_is_written_in_place_and_never_replaced: {why}");
        return;
    }
    write_output(&null, b"discarded").unwrap();
    let kind = fs::symlink_metadata(&null).unwrap().file_type();
    assert!(kind.is_char_device(), "the device node was replaced");
    assert_eq!(entries(dir.path()), ["null"]);
}

#[test]
fn write_error_on_a_device_is_reported_and_the_device_stays() {
    let dir = scratch();
    let full = dir.path().join("full");
    if let Err(why) = make_char_device(&full, 1, 7) {
        eprintln!("skipped write_error_on_a_device_is_reported_and_the_device_stays: {why}");
        return;
    }
    let error = write_output(&full, b"no room").unwrap_err();
    assert!(error.to_string().contains("No space left"), "{error}");
    assert!(
        fs::symlink_metadata(&full)
            .unwrap()
            .file_type()
            .is_char_device()
    );
}

#[test]
fn dev_null_stays_a_device() {
    write_output("/dev/null", b"discarded").unwrap();
    let kind = fs::symlink_metadata("/dev/null").unwrap().file_type();
    assert!(kind.is_char_device());
}

/// Runs `body` on a thread whose file-system identity is `nobody`, so permission checks
/// apply even when the tests run as root (setfsuid is per thread on Linux and drops the
/// DAC-override capability while the fsuid is not 0).
fn as_unprivileged<T: Send>(body: impl FnOnce() -> T + Send) -> Result<T, String> {
    if !is_root() {
        return Ok(body());
    }
    std::thread::scope(|s| {
        s.spawn(|| {
            const NOBODY: libc::uid_t = 65534;
            // SAFETY: setfsuid only changes this thread's file-system uid.
            unsafe { libc::setfsuid(NOBODY) };
            // setfsuid reports the previous value; asking again tells whether it took.
            let now = unsafe { libc::setfsuid(NOBODY) };
            if now != NOBODY as i32 {
                return Err("setfsuid is not permitted here".to_owned());
            }
            let result = body();
            unsafe { libc::setfsuid(0) };
            Ok(result)
        })
        .join()
        .unwrap()
    })
}

#[test]
fn read_only_directory_is_an_error_and_leaves_nothing() {
    let dir = scratch();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let locked = dir.path().join("locked");
    fs::create_dir(&locked).unwrap();
    fs::write(locked.join("out.mlir"), b"old").unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o555)).unwrap();
    let outcome = as_unprivileged(|| {
        (
            write_output(locked.join("out.mlir"), b"new").map_err(|e| e.to_string()),
            write_output(locked.join("fresh.mlir"), b"new").map_err(|e| e.to_string()),
        )
    });
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
    let (replace, create) = match outcome {
        Ok(results) => results,
        Err(why) => {
            eprintln!("skipped read_only_directory_is_an_error_and_leaves_nothing: {why}");
            return;
        }
    };
    for result in [replace, create] {
        let error = result.unwrap_err();
        assert!(error.contains("Permission denied"), "{error}");
    }
    assert_eq!(fs::read(locked.join("out.mlir")).unwrap(), b"old");
    assert_eq!(entries(&locked), ["out.mlir"]);
}

#[test]
fn failure_in_the_middle_of_a_write_keeps_the_old_file() {
    let dir = scratch();
    let path = dir.path().join("out.mlir");
    fs::write(&path, b"old").unwrap();
    {
        let mut output = OutputFile::create(&path).unwrap();
        output.write_all(b"half of the new").unwrap();
        // The writer fails here and returns early: the output is dropped uncommitted.
    }
    assert_eq!(fs::read(&path).unwrap(), b"old");
    assert_eq!(entries(dir.path()), ["out.mlir"]);
}

#[test]
fn failure_in_the_middle_of_a_new_file_leaves_no_file() {
    let dir = scratch();
    let path = dir.path().join("new.mlir");
    drop(OutputFile::create(&path).unwrap());
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn output_set_shows_nothing_until_every_file_is_written() {
    let dir = scratch();
    let first = dir.path().join("lib.o");
    fs::write(&first, b"old object").unwrap();
    let mut outputs = OutputSet::new();
    outputs.write(&first, b"new object").unwrap();
    // The second file cannot be written: the first must stay as it was.
    let error = outputs
        .write(dir.path().join("missing/lib.h"), b"header")
        .unwrap_err();
    assert!(error.to_string().contains("lib.h"), "{error}");
    drop(outputs);
    assert_eq!(fs::read(&first).unwrap(), b"old object");
    assert_eq!(entries(dir.path()), ["lib.o"]);
}

#[test]
fn output_set_commits_every_file() {
    let dir = scratch();
    let mut outputs = OutputSet::new();
    outputs.write(dir.path().join("a.npy"), b"a").unwrap();
    outputs.write(dir.path().join("b.npy"), b"b").unwrap();
    outputs.commit().unwrap();
    assert_eq!(entries(dir.path()), ["a.npy", "b.npy"]);
}
