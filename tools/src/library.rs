//! A loaded module compiled into a deployable library: the shared object, its C header and
//! its manifest, as `tb-translate --emit=shared-lib` writes them and the Python package
//! builds them in process.

use tb_backends::cpu::emit::link_shared_library;
use tb_backends::cpu::header::c_header;
use tb_backends::cpu::manifest::{ManifestInfo, manifest};
use tb_backends::cpu::{CompileOptions, EmitKind, emit};

use crate::load::Loaded;

/// The three files of a library named `<stem>.so`: `<stem>.h` and `<stem>.json` go next to it.
pub struct LibraryFiles {
    pub library: Vec<u8>,
    pub header: String,
    pub manifest: String,
}

/// Compiles the loop-level module of `loaded` into the files of library `<stem>.so`;
/// `source` names the input in the header and manifest.
pub fn build_library(
    loaded: &Loaded,
    options: &CompileOptions,
    stem: &str,
    source: &str,
) -> Result<LibraryFiles, String> {
    let emitted = emit(&loaded.ctx, loaded.module, options, EmitKind::SharedLib)
        .map_err(|d| loaded.render(&d))?;
    let library = link_shared_library(&emitted.bytes, options.threads.is_some())?;
    let (library_name, header_name) = (format!("{stem}.so"), format!("{stem}.h"));
    let header = c_header(&emitted.entry_points, &header_name, source);
    let info = ManifestInfo {
        library: &library_name,
        header: &header_name,
        source,
        threads: options.threads,
    };
    Ok(LibraryFiles {
        library,
        header,
        manifest: manifest(&emitted.entry_points, &info),
    })
}
