//! Entry points: [`read_bytes`] sniffs a record's format by content and reads it;
//! [`read_path`] walks files, folders (recursively, in sorted order) and `.zip` archives.

use std::{
    io::Read,
    path::{Path, PathBuf},
};

use super::{
    decode::decode_text,
    eglib,
    game::{Game, GameError},
    gib, pgn,
};
use crate::rules::Variant;

/// A binary (or HTML) format reader: `sniff` recognises the bytes, `read` reads them.
pub type BinaryReader = (
    fn(&[u8]) -> bool,
    fn(&str, &[u8]) -> Vec<Result<Game, GameError>>,
);

/// The readers tried first, in order, before any text decoding: XQF, CCBridge CBF/CBR/CBL and
/// DhtmlXQ (also inside an HTML page), each recognised by content.
pub const BINARY_READERS: &[BinaryReader] = &[
    (super::xqf::sniff, super::xqf::read),
    (super::ccbridge::sniff, super::ccbridge::read),
    (super::dhtmlxq::sniff, super::dhtmlxq::read),
];

/// Largest member of a zip archive that is read (guards against zip bombs).
const MAX_ZIP_MEMBER: u64 = 512 << 20;
/// How deep zips inside zips are opened.
const MAX_ZIP_DEPTH: usize = 2;

/// Reads one record from memory: the format is recognised by content (binary readers, zip
/// archives, `.gib`, `.eglib`, PGN, then plain move lists). `file` names the source in games
/// and errors. A record that cannot be read at all is one [`GameError`] with `game: None`.
///
/// ```
/// use qipu::formats::read_bytes;
/// let games = read_bytes("a.pgn", "[Game \"Chinese Chess\"]\n1. 炮二平五 马８进７ *".as_bytes());
/// assert_eq!(games.len(), 1);
/// assert_eq!(games[0].as_ref().unwrap().moves.len(), 2);
/// let bad = read_bytes("b.bin", &[0u8, 1, 2, 3, 0xff, 0xfe, 7]);
/// assert_eq!(bad[0].as_ref().unwrap_err().game, None);
/// ```
pub fn read_bytes(file: &str, bytes: &[u8]) -> Vec<Result<Game, GameError>> {
    read_bytes_depth(file, bytes, 0)
}

fn read_bytes_depth(file: &str, bytes: &[u8], depth: usize) -> Vec<Result<Game, GameError>> {
    for (sniff, read) in BINARY_READERS {
        if sniff(bytes) {
            return read(file, bytes);
        }
    }
    if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
        return read_zip(file, bytes, depth);
    }
    match read_text(file, bytes) {
        Ok(games) => games,
        Err(reason) => vec![Err(file_error(file, reason))],
    }
}

fn file_error(file: &str, reason: impl Into<String>) -> GameError {
    GameError {
        file: file.to_string(),
        game: None,
        ply: None,
        token: None,
        reason: reason.into(),
    }
}

/// The text formats. `Err` when the text is not a record in any of them.
fn read_text(file: &str, bytes: &[u8]) -> Result<Vec<Result<Game, GameError>>, String> {
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        return Err("empty file".into());
    }
    let decoded = decode_text(bytes);
    let text = decoded.text.as_str();
    if gib::looks_like_tygem_go(text) {
        return Err("a Tygem Go record (.gib), not Janggi".into());
    }
    if gib::looks_like_gib(text) {
        return Ok(gib::read_gib(file, text));
    }
    if eglib::looks_like_eglib(text) {
        return Ok(eglib::read_eglib(file, text).into_iter().map(Ok).collect());
    }
    if pgn::looks_like_pgn(text) {
        return Ok(pgn::read_pgn(file, text, Variant::Xiangqi)
            .into_iter()
            .map(Ok)
            .collect());
    }
    if let Some(variant) = movelist_variant(text) {
        if decoded.malformed == 0 {
            return Ok(pgn::read_pgn(file, text, variant)
                .into_iter()
                .map(Ok)
                .collect());
        }
    }
    Err("not a game record in any supported format".into())
}

/// Whether a text is a plain move list (most words look like moves in some notation), and of
/// which game.
fn movelist_variant(text: &str) -> Option<Variant> {
    if text
        .chars()
        .any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
    {
        return None;
    }
    let mut words = 0usize;
    let mut moves = 0usize;
    let mut korean = 0usize;
    for w in text.split_whitespace().take(400) {
        let w = match w.find(|c: char| !c.is_ascii_digit()) {
            Some(i) if i > 0 && w[i..].starts_with('.') => w[i..].trim_start_matches('.'),
            None => "",
            _ => w,
        };
        if w.is_empty() || matches!(w, "1-0" | "0-1" | "1/2-1/2" | "*") {
            continue;
        }
        words += 1;
        if looks_like_move(w) {
            moves += 1;
        }
        if w.chars().any(|c| ('\u{ac00}'..='\u{d7a3}').contains(&c)) {
            korean += 1;
        }
    }
    if words == 0 || moves * 10 < words * 8 {
        return None;
    }
    Some(if korean * 2 > words {
        Variant::Janggi
    } else {
        Variant::Xiangqi
    })
}

fn looks_like_move(w: &str) -> bool {
    let chars: Vec<char> = w.chars().collect();
    let verbs = "進进退平+-=.＋－＝．";
    let coord = |c: &[char]| {
        c.len() >= 4
            && c.len() <= 6
            && c.first()
                .is_some_and(|x| ('a'..='i').contains(&x.to_ascii_lowercase()))
            && c.get(1).is_some_and(char::is_ascii_digit)
    };
    let janggi = chars.len() >= 5
        && chars.len() <= 12
        && chars.iter().take(2).all(char::is_ascii_digit)
        && chars.iter().any(|c| !c.is_ascii());
    (chars.len() == 4 && chars.iter().skip(1).any(|c| verbs.contains(*c)))
        || coord(&chars)
        || janggi
        || matches!(w, "pass" | "한수쉼")
}

/// Reads every member of a zip archive; members are named `archive.zip:inner/path`, in the
/// archive's order sorted by name.
fn read_zip(file: &str, bytes: &[u8], depth: usize) -> Vec<Result<Game, GameError>> {
    if depth >= MAX_ZIP_DEPTH {
        return vec![Err(file_error(file, "zip archive nested too deeply"))];
    }
    let mut archive = match zip::ZipArchive::new(std::io::Cursor::new(bytes)) {
        Ok(a) => a,
        Err(e) => return vec![Err(file_error(file, format!("bad zip archive: {e}")))],
    };
    let mut names: Vec<(String, usize)> = (0..archive.len())
        .filter_map(|i| {
            let f = archive.by_index_raw(i).ok()?;
            (!f.is_dir()).then(|| (f.name().to_string(), i))
        })
        .collect();
    names.sort();
    let mut out = Vec::new();
    for (name, i) in names {
        let inner = format!("{file}:{name}");
        let data = archive
            .by_index(i)
            .map_err(|e| e.to_string())
            .and_then(|f| {
                if f.size() > MAX_ZIP_MEMBER {
                    return Err(format!("member larger than {MAX_ZIP_MEMBER} bytes"));
                }
                let mut buf =
                    Vec::with_capacity(usize::try_from(f.size()).unwrap_or(0).min(1 << 24));
                f.take(MAX_ZIP_MEMBER + 1)
                    .read_to_end(&mut buf)
                    .map_err(|e| e.to_string())?;
                Ok(buf)
            });
        match data {
            Ok(data) => {
                let games = read_bytes_depth(&inner, &data, depth + 1);
                if is_skippable(&name, &games) {
                    continue;
                }
                out.extend(games);
            }
            Err(e) => out.push(Err(file_error(&inner, format!("cannot read: {e}")))),
        }
    }
    out
}

/// File extensions of game records: an unreadable file with one of these is an error even in
/// a folder walk; any other file that is not a record is skipped silently (README, LICENSE).
const RECORD_EXTENSIONS: &[&str] = &[
    "pgn", "gib", "xqf", "cbr", "cbl", "cbf", "eglib", "dhtmlxq", "zip", "che", "ccm",
];

fn is_skippable(name: &str, games: &[Result<Game, GameError>]) -> bool {
    let ext = Path::new(name)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    let not_record = matches!(games, [Err(e)] if e.game.is_none()
        && (e.reason.starts_with("not a game record") || e.reason == "empty file"));
    not_record && !RECORD_EXTENSIONS.contains(&ext.as_str())
}

/// Reads a file, a folder (recursively, files in sorted order) or a zip archive, lazily file
/// by file. Inside a folder, files that are not game records and do not carry a record
/// extension (README, LICENSE, images) are skipped; a file named directly is always reported.
///
/// ```
/// use qipu::formats::read_path;
/// let dir = std::env::temp_dir().join("qipu-doc-read-path");
/// std::fs::create_dir_all(&dir).unwrap();
/// std::fs::write(dir.join("a.pgn"), "1. h2e2 h9g7 *").unwrap();
/// std::fs::write(dir.join("README"), "notes").unwrap();
/// let games: Vec<_> = read_path(&dir).collect();
/// assert_eq!(games.len(), 1);
/// assert!(games[0].is_ok());
/// ```
pub fn read_path(path: &Path) -> impl Iterator<Item = Result<Game, GameError>> {
    let (files, errors) = if path.is_dir() {
        let mut files = Vec::new();
        let mut errors = Vec::new();
        walk(path, &mut files, &mut errors);
        files.sort();
        (files.into_iter().map(|f| (f, true)).collect(), errors)
    } else {
        (vec![(path.to_path_buf(), false)], Vec::new())
    };
    errors.into_iter().map(Err).chain(
        files
            .into_iter()
            .flat_map(|(f, in_walk)| read_file(&f, in_walk)),
    )
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>, errors: &mut Vec<GameError>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            errors.push(file_error(
                &dir.display().to_string(),
                format!("cannot read folder: {e}"),
            ));
            return;
        }
    };
    let mut subdirs = Vec::new();
    for entry in entries.flatten() {
        let p = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() => subdirs.push(p),
            Ok(t) if t.is_file() || t.is_symlink() => files.push(p),
            _ => {}
        }
    }
    subdirs.sort();
    for d in subdirs {
        walk(&d, files, errors);
    }
}

fn read_file(path: &Path, in_walk: bool) -> Vec<Result<Game, GameError>> {
    let name = path.display().to_string();
    match std::fs::read(path) {
        Ok(bytes) => {
            let games = read_bytes(&name, &bytes);
            if in_walk && is_skippable(&name, &games) {
                Vec::new()
            } else {
                games
            }
        }
        Err(e) => vec![Err(file_error(&name, format!("cannot read file: {e}")))],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn movelists() {
        assert_eq!(
            movelist_variant("1. h2e2 h9g7 2. h0g2 i9h9"),
            Some(Variant::Xiangqi)
        );
        assert_eq!(
            movelist_variant("炮二平五 馬８進７\n馬二進三"),
            Some(Variant::Xiangqi)
        );
        assert_eq!(
            movelist_variant("1. 08마87 2. 18마37 3. 한수쉼"),
            Some(Variant::Janggi)
        );
        assert_eq!(movelist_variant("MIT License\n\nCopyright (c) 2020"), None);
    }

    #[test]
    fn tygem_go_is_refused() {
        let g = read_bytes(
            "go.gib",
            b"\\HS\n\\[GAMEBLACKNAME=a\\]\n\\HE\n\\GS\n2 1 0\n\\GE\n",
        );
        let e = g[0].as_ref().unwrap_err();
        assert!(e.reason.contains("Go"), "{e}");
    }
}
