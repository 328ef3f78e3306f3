//! Opening one file of the input: a regular file only, streamed when it is a large UTF-8
//! PGN text (`read/stream.rs`), else read whole up to [`MAX_FILE_BYTES`] and cut by
//! `read.rs`. It does not read games.

use std::{io::Read, path::Path};

use super::{cut, stream, Cut, ErrorKind};

/// Largest file read whole (a large UTF-8 PGN file is streamed, whatever its size).
pub(super) const MAX_FILE_BYTES: u64 = 2 << 30;

pub(super) fn file_chunks(path: &Path, in_walk: bool) -> Cut {
    let name = path.display().to_string();
    match open_regular_file(path) {
        Ok(file) => cut_file(&name, file, in_walk),
        Err(kind) => Cut::failed(&name, kind),
    }
}

/// A large UTF-8 PGN file is streamed (`read/stream.rs`); any other file is read whole.
fn cut_file(name: &str, (file, len): (std::fs::File, u64), in_walk: bool) -> Cut {
    let fail = |kind| Cut::failed(name, kind);
    let (file, first) = if len >= stream::STREAM_FROM {
        let mut first = Vec::with_capacity(stream::BLOCK_BYTES);
        if let Err(e) = (&file)
            .take(stream::BLOCK_BYTES as u64)
            .read_to_end(&mut first)
        {
            return fail(unreadable(&e));
        }
        match stream::PgnStream::open(name, in_walk, file, len, first) {
            Ok(s) => return Cut::Stream(Box::new(s)),
            Err(back) => back,
        }
    } else {
        (file, Vec::new())
    };
    match read_rest(file, len, first) {
        Ok(bytes) => cut(name, bytes, in_walk, 0),
        Err(kind) => fail(kind),
    }
}

/// A file's read error.
pub(super) fn unreadable(e: &std::io::Error) -> ErrorKind {
    ErrorKind::Unreadable(format!("cannot read file: {e}"))
}

/// A regular file, open, and its length: devices, FIFOs and sockets (`/dev/zero`, a pipe)
/// are refused at once rather than read until memory runs out.
fn open_regular_file(path: &Path) -> Result<(std::fs::File, u64), ErrorKind> {
    let meta = std::fs::metadata(path).map_err(|e| unreadable(&e))?;
    if !meta.is_file() {
        return Err(ErrorKind::Refused(
            "not a regular file (a device, pipe or socket): refused".into(),
        ));
    }
    let f = std::fs::File::open(path).map_err(|e| unreadable(&e))?;
    Ok((f, meta.len()))
}

/// The rest of a file read whole after its `first` bytes, up to [`MAX_FILE_BYTES`] in all.
fn read_rest(f: std::fs::File, len: u64, mut bytes: Vec<u8>) -> Result<Vec<u8>, ErrorKind> {
    let too_large =
        || ErrorKind::Refused(format!("file larger than {MAX_FILE_BYTES} bytes: refused"));
    if len > MAX_FILE_BYTES {
        return Err(too_large());
    }
    bytes.reserve(
        usize::try_from(len)
            .unwrap_or(0)
            .saturating_sub(bytes.len()),
    );
    let left = (MAX_FILE_BYTES + 1).saturating_sub(bytes.len() as u64);
    f.take(left)
        .read_to_end(&mut bytes)
        .map_err(|e| unreadable(&e))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_large());
    }
    Ok(bytes)
}
