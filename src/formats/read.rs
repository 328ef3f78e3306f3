//! Entry points: [`read_bytes`] sniffs a record's format by content and reads it;
//! [`read_path`] walks files, folders (recursively, in sorted order) and `.zip` archives.
//!
//! Underneath, input is cut into [`Chunk`]s that read independently of each other — a whole
//! file, a zip member, or a run of games of a large PGN text — so that the import can read
//! them in parallel; reading the chunks in order and numbering their games with
//! [`GameNumbers`] gives exactly the games of [`read_path`].

use std::{
    io::Read,
    ops::Range,
    path::{Path, PathBuf},
    sync::Arc,
};

use super::{
    decode::{decode_text, decode_text_owned, Decoded},
    dump, eglib,
    error::{ErrorKind, GameError},
    game::{Game, Source},
    gib, pgn,
};
use crate::rules::Variant;

mod file;
mod stream;

use file::file_chunks;

/// A binary (or HTML) format reader: `sniff` recognises the bytes, `read` reads them.
pub type BinaryReader = (
    fn(&[u8]) -> bool,
    fn(&str, &[u8]) -> Vec<Result<Game, GameError>>,
);

/// The readers tried first, in order, before any text decoding: XQF, CCBridge CBF/CBR/CBL,
/// DhtmlXQ (also inside an HTML page) and the elephantchess CSV, each recognised by content.
pub const BINARY_READERS: &[BinaryReader] = &[
    (super::xqf::sniff, super::xqf::read),
    (super::ccbridge::sniff, super::ccbridge::read),
    (super::dhtmlxq::sniff, super::dhtmlxq::read),
    (super::elephant::sniff, super::elephant::read),
];

/// Largest member of a zip archive that is read (guards against zip bombs).
const MAX_ZIP_MEMBER: u64 = 512 << 20;
/// How deep zips inside zips are opened.
const MAX_ZIP_DEPTH: usize = 2;
/// PGN texts longer than this are cut into runs of games of about this size.
pub const PGN_CHUNK_BYTES: usize = 128 << 10;

/// Part of the input that reads on its own.
#[derive(Clone, Debug)]
pub struct Chunk {
    /// The file it comes from (`archive.zip:inner/path` inside zips).
    pub file: String,
    /// 0 for the first (or only) chunk of its file, then 1, 2…
    pub part: usize,
    content: Content,
}

#[derive(Clone, Debug)]
enum Content {
    /// A whole record, not decoded yet. `quiet`: found by a folder walk or in a zip, so
    /// skipped without an error if it is not a record and has no record extension.
    Bytes { bytes: Vec<u8>, quiet: bool },
    /// A decoded text: the whole of it (`part: None`, any text format), or a run of games
    /// of a PGN text.
    Text {
        text: Arc<Decoded>,
        part: Option<Range<usize>>,
        quiet: bool,
        /// Where `text` begins in the file's decoded text (0 but in a streamed file).
        offset: usize,
    },
    /// Input that could not be read (a folder, file or zip member).
    Failed(GameError),
}

impl Chunk {
    /// Reads the chunk's games. Their indices (`source.index`, and `game` in errors) count
    /// from 0 within the chunk; [`GameNumbers`] turns them into indices within the file.
    pub fn read(&self) -> Vec<Result<Game, GameError>> {
        match &self.content {
            Content::Bytes { bytes, quiet } => {
                self.unless_skipped(*quiet, read_record(&self.file, bytes))
            }
            Content::Text {
                text,
                part: None,
                quiet,
                ..
            } => self.unless_skipped(
                *quiet,
                or_file_error(&self.file, read_decoded(&self.file, text)),
            ),
            Content::Text {
                text,
                part: Some(range),
                ..
            } => pgn::read_pgn(&self.file, &text.text[range.clone()], Variant::Xiangqi),
            Content::Failed(e) => vec![Err(e.clone())],
        }
    }

    fn unless_skipped(
        &self,
        quiet: bool,
        games: Vec<Result<Game, GameError>>,
    ) -> Vec<Result<Game, GameError>> {
        if quiet && is_skippable(&self.file, &games) {
            Vec::new()
        } else {
            games
        }
    }

    /// Where the chunk starts in its file's decoded text (0 for a whole record).
    fn text_start(&self) -> usize {
        match &self.content {
            Content::Text {
                part: Some(range),
                offset,
                ..
            } => offset + range.start,
            _ => 0,
        }
    }

    /// Its size in bytes (what the import uses to bound the work in flight).
    pub fn size(&self) -> usize {
        match &self.content {
            Content::Bytes { bytes, .. } => bytes.len(),
            Content::Text { text, part, .. } => part.as_ref().map_or(text.text.len(), Range::len),
            Content::Failed(_) => 0,
        }
    }
}

/// What a reader makes that knows where in its file it was read: a [`Game`], or what the
/// import makes of one.
pub trait Placed {
    /// Where it was read.
    fn source_mut(&mut self) -> &mut Source;

    /// Its byte offset in the decoded text, if it keeps one (a game read, not a record).
    fn offset_mut(&mut self) -> Option<&mut Option<u32>> {
        None
    }
}

impl Placed for Game {
    fn source_mut(&mut self) -> &mut Source {
        &mut self.source
    }

    fn offset_mut(&mut self) -> Option<&mut Option<u32>> {
        Some(&mut self.offset)
    }
}

/// Numbers games within their file across the chunks of the file, read in order.
///
/// ```
/// use qipu::formats::{chunks_of_bytes, GameNumbers};
/// let text = "[Event \"a\"]\n1. h2e2 *\n".repeat(20_000);
/// let chunks = chunks_of_bytes("big.pgn", text.into_bytes());
/// assert!(chunks.len() > 1);
/// let mut numbers = GameNumbers::default();
/// let mut indices = Vec::new();
/// for p in &chunks {
///     let mut games = p.read();
///     numbers.place(p, &mut games);
///     indices.extend(games.iter().map(|g| g.as_ref().unwrap().source.index));
/// }
/// assert_eq!(indices, (0..20_000).collect::<Vec<_>>());
/// ```
#[derive(Clone, Debug, Default)]
pub struct GameNumbers {
    file: String,
    next: usize,
}

impl GameNumbers {
    /// Renumbers what reading a chunk gave (games and game errors, counted from 0 within the
    /// chunk) within its file, and moves byte offsets (of errors, and of games that keep
    /// one) from the chunk's text to the file's. Chunks must come in order.
    pub fn place<T: Placed>(&mut self, chunk: &Chunk, items: &mut [Result<T, GameError>]) {
        if chunk.part == 0 || chunk.file != self.file {
            self.file.clone_from(&chunk.file);
            self.next = 0;
        }
        let offset = self.next;
        let text_start = chunk.text_start();
        let in_file = |o: u32| u32::try_from(text_start).ok()?.checked_add(o);
        for item in items.iter_mut() {
            let index = match item {
                Ok(g) => {
                    if let Some(o) = g.offset_mut() {
                        *o = o.and_then(in_file);
                    }
                    Some(&mut g.source_mut().index)
                }
                Err(e) => {
                    e.offset = e.offset.and_then(in_file);
                    e.game.as_mut()
                }
            };
            if let Some(i) = index {
                *i += offset;
                self.next = self.next.max(*i + 1);
            }
        }
    }
}

/// Reads the chunks in order and numbers their games within their files.
fn read_chunks(
    chunks: impl Iterator<Item = Chunk>,
) -> impl Iterator<Item = Result<Game, GameError>> {
    let mut numbers = GameNumbers::default();
    chunks.flat_map(move |p| {
        let mut games = p.read();
        numbers.place(&p, &mut games);
        games
    })
}

/// Reads one record from memory: the format is recognised by content (binary readers, zip
/// archives, `.gib`, `.eglib`, PGN, move-list dumps of one game a line, then plain move
/// lists). `file` names the source in games
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
    read_chunks(chunks_of_bytes(file, bytes.to_vec()).into_iter()).collect()
}

/// Cuts a record in memory into chunks: a zip archive into its members, a large PGN text into
/// runs of games, anything else is one chunk.
pub fn chunks_of_bytes(file: &str, bytes: Vec<u8>) -> Vec<Chunk> {
    cut(file, bytes, false, 0).collect()
}

/// The chunks of one input, made as they are taken: a zip archive's members are
/// decompressed one at a time, so that only the members in flight are held.
enum Cut {
    Ready(std::vec::IntoIter<Chunk>),
    Zip(Box<ZipMembers>),
    Stream(Box<stream::PgnStream>),
}

impl Iterator for Cut {
    type Item = Chunk;

    fn next(&mut self) -> Option<Chunk> {
        match self {
            Cut::Ready(v) => v.next(),
            Cut::Zip(z) => z.next(),
            Cut::Stream(s) => s.next(),
        }
    }
}

impl Cut {
    /// The one chunk of an input that cannot be read.
    fn failed(file: &str, kind: ErrorKind) -> Cut {
        Cut::Ready(vec![failed(file_error(file, kind))].into_iter())
    }
}

/// Whether bytes are a record of one of [`BINARY_READERS`].
fn is_binary(bytes: &[u8]) -> bool {
    BINARY_READERS.iter().any(|(sniff, _)| sniff(bytes))
}

/// Whether bytes begin a zip archive.
fn is_zip(bytes: &[u8]) -> bool {
    bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06")
}

/// Whether a decoded text is read as PGN (and so may be cut into runs of games).
fn is_pgn_text(text: &str) -> bool {
    pgn::looks_like_pgn(text) && !is_special_text(text)
}

fn cut(file: &str, bytes: Vec<u8>, quiet: bool, depth: usize) -> Cut {
    let mut out = Vec::new();
    let binary = is_binary(&bytes);
    if is_zip(&bytes) && !binary {
        return cut_zip(file, bytes, depth);
    }
    cut_record(file, bytes, quiet, binary, &mut out);
    Cut::Ready(out.into_iter())
}

/// Largest record read as one chunk (any format but PGN, which is cut into runs of games).
pub const MAX_RECORD_BYTES: usize = 256 << 20;

fn cut_record(file: &str, bytes: Vec<u8>, quiet: bool, binary: bool, out: &mut Vec<Chunk>) {
    if bytes.len() > 2 * PGN_CHUNK_BYTES && !binary {
        let text = Arc::new(decode_text_owned(bytes));
        if !is_pgn_text(&text.text) {
            if text.text.len() > MAX_RECORD_BYTES {
                return out.push(failed(file_error(
                    file,
                    ErrorKind::Refused(format!(
                        "record larger than {MAX_RECORD_BYTES} bytes: refused"
                    )),
                )));
            }
            return out.push(Chunk {
                file: file.to_string(),
                part: 0,
                content: Content::Text {
                    text,
                    part: None,
                    quiet,
                    offset: 0,
                },
            });
        }
        let starts = pgn::chunk_starts(&text.text, PGN_CHUNK_BYTES);
        let ends = starts.iter().skip(1).copied().chain([text.text.len()]);
        for (part, (start, end)) in starts.iter().copied().zip(ends).enumerate() {
            out.push(Chunk {
                file: file.to_string(),
                part,
                content: Content::Text {
                    text: Arc::clone(&text),
                    part: Some(start..end),
                    quiet,
                    offset: 0,
                },
            });
        }
        return;
    }
    if bytes.len() > MAX_RECORD_BYTES {
        return out.push(failed(file_error(
            file,
            ErrorKind::Refused(format!(
                "record larger than {MAX_RECORD_BYTES} bytes: refused"
            )),
        )));
    }
    out.push(Chunk {
        file: file.to_string(),
        part: 0,
        content: Content::Bytes { bytes, quiet },
    });
}

/// Texts that look like PGN at first sight but are read by another reader.
fn is_special_text(text: &str) -> bool {
    gib::looks_like_tygem_go(text) || gib::looks_like_gib(text) || eglib::looks_like_eglib(text)
}

fn file_error(file: &str, kind: ErrorKind) -> GameError {
    GameError::file(file, kind)
}

fn failed(e: GameError) -> Chunk {
    Chunk {
        file: e.file.clone(),
        part: 0,
        content: Content::Failed(e),
    }
}

/// One record, zip archives excepted (those are cut into chunks first).
fn read_record(file: &str, bytes: &[u8]) -> Vec<Result<Game, GameError>> {
    for (sniff, read) in BINARY_READERS {
        if sniff(bytes) {
            return read(file, bytes);
        }
    }
    or_file_error(file, read_decoded(file, &decode_text(bytes)))
}

fn or_file_error(
    file: &str,
    read: Result<Vec<Result<Game, GameError>>, ErrorKind>,
) -> Vec<Result<Game, GameError>> {
    read.unwrap_or_else(|reason| vec![Err(file_error(file, reason))])
}

/// The text formats. `Err` when the text is not a record in any of them.
fn read_decoded(file: &str, decoded: &Decoded) -> Result<Vec<Result<Game, GameError>>, ErrorKind> {
    let text = decoded.text.as_str();
    if text.trim().is_empty() {
        return Err(ErrorKind::Empty);
    }
    if gib::looks_like_tygem_go(text) {
        return Err(ErrorKind::GoRecord);
    }
    if gib::looks_like_gib(text) {
        return Ok(gib::read_gib(file, text));
    }
    if eglib::looks_like_eglib(text) {
        return Ok(eglib::read_eglib(file, text).into_iter().map(Ok).collect());
    }
    if pgn::looks_like_pgn(text) {
        return Ok(pgn::read_pgn(file, text, Variant::Xiangqi));
    }
    if dump::looks_like_dump(text) {
        return Ok(dump::read_dump(file, text));
    }
    let (fen, body) = match split_fen_prefix(text) {
        Some((fen, body)) => (Some(fen), body.replace(',', " ")),
        None => (None, text.to_string()),
    };
    if let Some(variant) = movelist_variant(&body) {
        if decoded.malformed == 0 {
            let mut games = pgn::read_pgn(file, &body, variant);
            if let Some(fen) = fen {
                games.truncate(1);
                for g in games.iter_mut().flatten() {
                    g.start_fen = Some(fen.clone());
                }
                if games.is_empty() {
                    let mut g = Game::new(
                        variant,
                        super::Source {
                            file: file.to_string(),
                            index: 0,
                        },
                    );
                    g.start_fen = Some(fen);
                    games.push(Ok(g));
                }
            }
            return Ok(games);
        }
    }
    Err(ErrorKind::NotARecord)
}

/// A move list may start with a FEN (`placement [side]`, then a comma or a newline): returns
/// the FEN and the rest.
fn split_fen_prefix(text: &str) -> Option<(String, &str)> {
    let t = text.trim_start();
    let end = t.find(['\n', ',']).unwrap_or(t.len());
    let head = t[..end].trim();
    let mut parts = head.split_whitespace();
    let placement = parts.next()?;
    if placement.split('/').count() != 10
        || !placement
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '/')
    {
        return None;
    }
    let side = match parts.next() {
        Some(s @ ("w" | "b" | "r")) => s,
        Some(_) => return None,
        None => "w",
    };
    let side = if side == "b" { "b" } else { "w" };
    Some((
        format!("{placement} {side}"),
        t.get(end + 1..).unwrap_or_default(),
    ))
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
        if w.is_empty() || pgn::is_result(w) {
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

/// Whether a word has the shape of a move in some notation qipu reads (Chinese, WXF,
/// coordinates, Janggi numbers, a pass); whether it is one is replay's business.
pub(super) fn looks_like_move(w: &str) -> bool {
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

/// A member may expand to at most this many times its compressed size (beyond
/// [`ZIP_RATIO_FLOOR`]): more is taken for a zip bomb and refused.
pub const MAX_ZIP_RATIO: u64 = 100;
/// Members up to this size are read whatever their compression ratio.
const ZIP_RATIO_FLOOR: u64 = 1 << 20;
/// Most uncompressed bytes read out of one archive, all members together.
pub const MAX_ZIP_TOTAL: u64 = 4 << 30;

/// The members of a zip archive, cut into chunks one member at a time; members are named
/// `archive.zip:inner/path`, in the archive's order sorted by name.
struct ZipMembers {
    file: String,
    archive: zip::ZipArchive<std::io::Cursor<Vec<u8>>>,
    names: std::vec::IntoIter<(String, usize)>,
    depth: usize,
    current: Option<Cut>,
    total: u64,
}

fn cut_zip(file: &str, bytes: Vec<u8>, depth: usize) -> Cut {
    let fail = |kind: ErrorKind| Cut::failed(file, kind);
    if depth >= MAX_ZIP_DEPTH {
        return fail(ErrorKind::Refused("zip archive nested too deeply".into()));
    }
    let mut archive = match zip::ZipArchive::new(std::io::Cursor::new(bytes)) {
        Ok(a) => a,
        Err(e) => return fail(ErrorKind::Malformed(format!("bad zip archive: {e}"))),
    };
    let mut names: Vec<(String, usize)> = (0..archive.len())
        .filter_map(|i| {
            let f = archive.by_index_raw(i).ok()?;
            (!f.is_dir()).then(|| (f.name().to_string(), i))
        })
        .collect();
    names.sort();
    Cut::Zip(Box::new(ZipMembers {
        file: file.to_string(),
        archive,
        names: names.into_iter(),
        depth,
        current: None,
        total: 0,
    }))
}

impl ZipMembers {
    /// One member's bytes, within the member, ratio and archive limits.
    fn member(&mut self, i: usize) -> Result<Vec<u8>, ErrorKind> {
        let unreadable =
            |e: &dyn std::fmt::Display| ErrorKind::Unreadable(format!("cannot read: {e}"));
        let f = self.archive.by_index(i).map_err(|e| unreadable(&e))?;
        let by_ratio = f
            .compressed_size()
            .saturating_mul(MAX_ZIP_RATIO)
            .max(ZIP_RATIO_FLOOR);
        let limit = by_ratio
            .min(MAX_ZIP_MEMBER)
            .min(MAX_ZIP_TOTAL.saturating_sub(self.total));
        let mut buf = Vec::with_capacity(
            usize::try_from(f.size().min(limit))
                .unwrap_or(0)
                .min(1 << 24),
        );
        f.take(limit + 1)
            .read_to_end(&mut buf)
            .map_err(|e| unreadable(&e))?;
        let read = buf.len() as u64;
        self.total += read.min(limit);
        if read > limit {
            return Err(ErrorKind::Refused(if limit == by_ratio {
                format!("member expands more than {MAX_ZIP_RATIO} times its compressed size (a zip bomb?): refused")
            } else if limit == MAX_ZIP_MEMBER {
                format!("member larger than {MAX_ZIP_MEMBER} bytes")
            } else {
                format!("archive expands to more than {MAX_ZIP_TOTAL} bytes: refused")
            }));
        }
        Ok(buf)
    }
}

impl Iterator for ZipMembers {
    type Item = Chunk;

    fn next(&mut self) -> Option<Chunk> {
        loop {
            if let Some(p) = self.current.as_mut().and_then(Iterator::next) {
                return Some(p);
            }
            self.current = None;
            let (name, i) = self.names.next()?;
            let inner = format!("{}:{name}", self.file);
            match self.member(i) {
                Ok(data) => self.current = Some(cut(&inner, data, true, self.depth + 1)),
                Err(kind) => return Some(failed(file_error(&inner, kind))),
            }
        }
    }
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
    let not_record = matches!(games, [Err(e)] if e.game.is_none() && e.kind.is_not_a_record());
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
    read_chunks(chunks(path))
}

/// The chunks of a file, a folder or a zip archive, lazily file by file (see [`read_path`]).
pub fn chunks(path: &Path) -> impl Iterator<Item = Chunk> {
    let (files, errors) = if path.is_dir() {
        let mut files = Vec::new();
        let mut errors = Vec::new();
        walk(path, &mut files, &mut errors);
        files.sort();
        (files.into_iter().map(|f| (f, true)).collect(), errors)
    } else {
        (vec![(path.to_path_buf(), false)], Vec::new())
    };
    errors.into_iter().map(failed).chain(
        files
            .into_iter()
            .flat_map(|(f, in_walk)| file_chunks(&f, in_walk)),
    )
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>, errors: &mut Vec<GameError>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            errors.push(file_error(
                &dir.display().to_string(),
                ErrorKind::Unreadable(format!("cannot read folder: {e}")),
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
    fn move_list_after_a_fen() {
        let g = read_bytes(
            "m.txt",
            "9/3k5/4c4/4N4/9/6R2/9/5p3/4r4/5K3 w, g4g8 d8d9 e6c7, 1-0\n".as_bytes(),
        );
        let g = g[0].as_ref().unwrap();
        assert_eq!(
            g.start_fen.as_deref(),
            Some("9/3k5/4c4/4N4/9/6R2/9/5p3/4r4/5K3 w")
        );
        assert_eq!(g.moves.len(), 3);
        let text = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w\n兵七进一\n马８进７\n黑胜";
        let g = read_bytes("m.txt", text.as_bytes());
        let g = g[0].as_ref().unwrap();
        assert_eq!(g.moves.len(), 2);
        assert_eq!(
            g.tags.result,
            Some(crate::rules::Outcome::Decisive {
                winner: crate::rules::Color::Second
            })
        );
    }

    #[test]
    fn tygem_go_is_refused() {
        let g = read_bytes(
            "go.gib",
            b"\\HS\n\\[GAMEBLACKNAME=a\\]\n\\HE\n\\GS\n2 1 0\n\\GE\n",
        );
        let e = g[0].as_ref().unwrap_err();
        assert_eq!(e.kind, ErrorKind::GoRecord, "{e}");
        assert!(e.reason().contains("Go"), "{e}");
    }
}
