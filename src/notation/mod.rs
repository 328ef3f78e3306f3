//! Move notations: parse (syntax, then resolution against a position) and render.
//!
//! Every reader works in two phases, as shakmaty's SAN does: a syntax phase that needs no
//! position, then resolution against a position's board and legal moves, with distinct
//! errors for bad syntax, no such legal move, and ambiguity. One module per notation:
//! [`coord`] (ICCS, UCCI, Fairy-Stockfish UCI, passes), [`chinese`] and [`wxf`] (both on the
//! shared [`vertical`] model), [`korean`] (`.gib` Korean coordinates and Fairy-Stockfish's
//! Janggi notation) and [`san`] (algebraic).
//!
//! [`parse_move`] detects the notation of one text; [`MoveReader`] does the same for the moves
//! of one game and remembers the coordinate rank base once it is known. [`render`] writes a
//! move in any [`Notation`].

pub mod chinese;
pub mod coord;
pub mod korean;
mod line;
pub mod san;
pub mod vertical;
pub mod wxf;

use std::fmt;

use crate::rules::{AnyPosition, Move, Square, Variant};
use coord::{CoordMove, RankBase};
use vertical::Matches;

pub use line::{parse_rules, rules_name, Line, LineError, RULE_NAMES};

/// Why a move text could not be turned into a legal move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotationError {
    /// The text is not a move in any notation understood here.
    Syntax(String),
    /// The text is well-formed but no legal move matches it.
    Illegal(String),
    /// The text matches more than one legal move.
    Ambiguous(String),
}

impl NotationError {
    /// The offending move text.
    pub fn text(&self) -> &str {
        match self {
            NotationError::Syntax(t) | NotationError::Illegal(t) | NotationError::Ambiguous(t) => t,
        }
    }
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotationError::Syntax(t) => write!(f, "cannot read move `{t}`"),
            NotationError::Illegal(t) => write!(f, "illegal move `{t}`"),
            NotationError::Ambiguous(t) => write!(f, "ambiguous move `{t}`"),
        }
    }
}

impl std::error::Error for NotationError {}

/// A notation to write moves in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Notation {
    /// qipu's canonical coordinates, UCCI/Pikafish style: `h2e2`, ranks 0–9; `pass`.
    Coord,
    /// ICCS: `H2-E2`, ranks 0–9.
    Iccs,
    /// Fairy-Stockfish/pychess UCI: `h3e3`, `h10g8`, ranks 1–10; a pass is the general moving
    /// to its own square (`e2e2`).
    FsUci,
    /// Chinese vertical-line notation (`炮二平五`, `马８进７`), simplified or traditional.
    Chinese {
        /// Traditional characters (`馬８進７`, `後`).
        traditional: bool,
    },
    /// WXF (`C2.5`, `H8+7`, `C+-2`, `Pa.5`).
    Wxf,
    /// Korean coordinates of `.gib` records (`08마87`), Hangul or Hanja (`08楚馬87`).
    Korean {
        /// Hanja piece names with the side (`楚`/`漢`).
        hanja: bool,
    },
}

impl Notation {
    /// Every notation, in the order of [`Notation::name`].
    pub const ALL: [Notation; 8] = [
        Notation::Coord,
        Notation::Iccs,
        Notation::FsUci,
        Notation::Chinese { traditional: false },
        Notation::Chinese { traditional: true },
        Notation::Wxf,
        Notation::Korean { hanja: false },
        Notation::Korean { hanja: true },
    ];

    /// A short name for command lines and JSON: `coord`, `iccs`, `fs-uci`, `chinese`,
    /// `chinese-traditional`, `wxf`, `korean`, `korean-hanja`.
    pub const fn name(self) -> &'static str {
        match self {
            Notation::Coord => "coord",
            Notation::Iccs => "iccs",
            Notation::FsUci => "fs-uci",
            Notation::Chinese { traditional: false } => "chinese",
            Notation::Chinese { traditional: true } => "chinese-traditional",
            Notation::Wxf => "wxf",
            Notation::Korean { hanja: false } => "korean",
            Notation::Korean { hanja: true } => "korean-hanja",
        }
    }
}

impl fmt::Display for Notation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Reads a notation name ([`Notation::name`], case-insensitive; also `ucci`, `uci`, `hanja`).
///
/// ```
/// use qipu::notation::Notation;
/// assert_eq!("WXF".parse::<Notation>(), Ok(Notation::Wxf));
/// assert_eq!("chinese-traditional".parse(), Ok(Notation::Chinese { traditional: true }));
/// assert!("morse".parse::<Notation>().is_err());
/// ```
impl std::str::FromStr for Notation {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let l = s.trim().to_ascii_lowercase();
        if let Some(n) = Notation::ALL.into_iter().find(|n| n.name() == l) {
            return Ok(n);
        }
        match l.as_str() {
            "ucci" | "canonical" => Ok(Notation::Coord),
            "uci" | "fs" => Ok(Notation::FsUci),
            "hanja" => Ok(Notation::Korean { hanja: true }),
            _ => Err(format!(
                "unknown notation `{s}` (expected one of: {})",
                Notation::ALL.map(Notation::name).join(", ")
            )),
        }
    }
}

/// Whether a candidate move is legal: the rules core's single-move test (a direct test for
/// Xiangqi, the moved piece's moves for Janggi), never a whole legal-move list.
#[inline]
pub(crate) fn is_legal(pos: &AnyPosition, m: Move) -> bool {
    pos.is_legal(m)
}

/// Writes a legal move in a notation.
///
/// Chinese and WXF follow xqbase's rules for tandem pieces; Black's numbers are full-width
/// digits in Chinese. Korean writes `08마87` (a pass is `한수쉼`). A notation that does not
/// belong to the position's game (Chinese or WXF for Janggi, Korean for Xiangqi) gives the
/// canonical coordinate form.
///
/// ```
/// use qipu::notation::{render, Notation};
/// use qipu::rules::{AnyPosition, Variant};
/// let pos = AnyPosition::new(Variant::Xiangqi);
/// let m = "h2e2".parse().unwrap();
/// assert_eq!(render(&pos, m, Notation::Chinese { traditional: false }), "炮二平五");
/// assert_eq!(render(&pos, m, Notation::Wxf), "C2.5");
/// assert_eq!(render(&pos, m, Notation::Iccs), "H2-E2");
/// assert_eq!(render(&pos, m, Notation::FsUci), "h3e3");
/// let jg = AnyPosition::new(Variant::Janggi);
/// assert_eq!(render(&jg, "h0g2".parse().unwrap(), Notation::Korean { hanja: false }), "08마87");
/// ```
pub fn render(pos: &AnyPosition, m: Move, n: Notation) -> String {
    let xq = pos.variant() == Variant::Xiangqi;
    let rendered = match n {
        Notation::Coord => None,
        Notation::Iccs => Some(coord::render_iccs(m)),
        Notation::FsUci => coord::render_fs_uci(pos, m),
        Notation::Chinese { traditional } if xq => chinese::render(pos.board(), m, traditional),
        Notation::Wxf if xq => wxf::render(pos.board(), m),
        Notation::Korean { hanja } if !xq => korean::render(pos, m, hanja),
        _ => None,
    };
    rendered.unwrap_or_else(|| m.to_string())
}

/// Reads a move written in any supported notation and resolves it against the position.
///
/// Coordinates (`h2e2`, `H2-E2`, `h10g8`, passes), Chinese, WXF and its dialects, Korean
/// `.gib` coordinates (`08마87`, `79楚卒78`, `한수쉼`), `i3卒h3`, Fairy-Stockfish's Janggi
/// notation (`H02-83`) and SAN. Coordinates without a `0` or `10` rank are read 0–9 if that
/// is legal, else 1–10 (use [`MoveReader`] for a whole game).
///
/// # Errors
/// [`NotationError`] with the offending text.
///
/// ```
/// use qipu::notation::parse_move;
/// use qipu::rules::{AnyPosition, Variant};
/// let pos = AnyPosition::new(Variant::Xiangqi);
/// for text in ["h2e2", "H2-E2", "h3e3", "炮二平五", "炮2平5", "C2.5", "Ｃ２＝５", "C25", "Che3"] {
///     assert_eq!(parse_move(&pos, text).unwrap().to_string(), "h2e2", "{text}");
/// }
/// let jg = AnyPosition::new(Variant::Janggi);
/// assert_eq!(parse_move(&jg, "08마87").unwrap().to_string(), "h0g2");
/// assert!(parse_move(&jg, "한수쉼").unwrap().is_pass());
/// ```
pub fn parse_move(pos: &AnyPosition, text: &str) -> Result<Move, NotationError> {
    let mut base = None;
    read_with(pos, text, &mut base, false)
}

/// Reads the moves of one game: like [`parse_move`], but remembers the coordinate rank base
/// (0–9 or 1–10) once a `0` or `10` rank, or a move legal under only one of the two
/// readings, decides it; until then each coordinate move takes the reading that is legal
/// (0–9 if both are).
///
/// ```
/// use qipu::notation::MoveReader;
/// use qipu::notation::coord::RankBase;
/// use qipu::rules::{AnyPosition, Variant};
/// let mut pos = AnyPosition::new(Variant::Xiangqi);
/// let mut reader = MoveReader::new();
/// for text in ["h3e3", "h10g8", "h1g3"] {
///     let m = reader.read(&pos, text).unwrap();
///     pos.play(m).unwrap();
/// }
/// assert_eq!(reader.rank_base(), Some(RankBase::One));
/// ```
#[derive(Clone, Debug, Default)]
pub struct MoveReader {
    base: Option<RankBase>,
}

impl MoveReader {
    /// A reader for a new game (rank base not yet known).
    pub fn new() -> MoveReader {
        MoveReader::default()
    }

    /// A reader whose rank base is already known (from the source's provenance).
    pub fn with_rank_base(base: RankBase) -> MoveReader {
        MoveReader { base: Some(base) }
    }

    /// The rank base decided so far.
    pub fn rank_base(&self) -> Option<RankBase> {
        self.base
    }

    /// Reads and resolves one move of the game.
    ///
    /// # Errors
    /// [`NotationError`] with the offending text.
    pub fn read(&mut self, pos: &AnyPosition, text: &str) -> Result<Move, NotationError> {
        read_with(pos, text, &mut self.base, true)
    }
}

/// Resolves a coordinate-like reading under the known base, or tries both; with `remember`,
/// a decided base is stored.
fn resolve_based(
    base: &mut Option<RankBase>,
    remember: bool,
    forced: Option<RankBase>,
    text: &str,
    mut under: impl FnMut(RankBase) -> Result<Move, NotationError>,
) -> Result<Move, NotationError> {
    if let Some(b) = forced.or(*base) {
        let r = under(b);
        if remember && r.is_ok() {
            *base = Some(b);
        }
        return r;
    }
    let zero = under(RankBase::Zero);
    let one = under(RankBase::One);
    match (zero, one) {
        (Ok(m), Ok(_)) => Ok(m),
        (Ok(m), Err(_)) => {
            if remember {
                *base = Some(RankBase::Zero);
            }
            Ok(m)
        }
        (Err(_), Ok(m)) => {
            if remember {
                *base = Some(RankBase::One);
            }
            Ok(m)
        }
        (Err(e @ NotationError::Ambiguous(_)), Err(_))
        | (Err(_), Err(e @ NotationError::Ambiguous(_))) => Err(e),
        (Err(_), Err(_)) => Err(NotationError::Illegal(text.to_string())),
    }
}

/// Resolves a set of vertical-line readings: exactly one legal move, or an error.
fn resolve_vertical<'a>(
    pos: &AnyPosition,
    readings: impl Iterator<Item = &'a vertical::Vertical>,
    text: &str,
) -> Result<Move, NotationError> {
    let mut out = Matches::new();
    for v in readings {
        v.resolve_into(pos, &mut out);
    }
    match (out.len(), out.first()) {
        (1, Some(m)) => Ok(m),
        (0, _) | (_, None) => Err(NotationError::Illegal(text.to_string())),
        _ => Err(NotationError::Ambiguous(text.to_string())),
    }
}

fn read_with(
    pos: &AnyPosition,
    text: &str,
    base: &mut Option<RankBase>,
    remember: bool,
) -> Result<Move, NotationError> {
    let t = text.trim();
    let first = t.chars().next();
    if first.is_none() {
        return Err(NotationError::Syntax(text.to_string()));
    }
    if first.is_some_and(|c| c.is_ascii()) && t.is_ascii() {
        if let Ok(c) = CoordMove::parse(t) {
            return resolve_based(base, remember, c.forced_base(), text, |b| {
                c.to_move(b, pos)
                    .filter(|m| is_legal(pos, *m))
                    .ok_or_else(|| NotationError::Illegal(text.to_string()))
            });
        }
        if let Ok(f) = korean::parse_fs(t) {
            return f.resolve(pos, text);
        }
        if let Ok(r) = wxf::parse(t) {
            return resolve_vertical(pos, r.iter(), text);
        }
        if let Ok(s) = san::San::parse(t) {
            return resolve_based(base, remember, s.forced_base(), text, |b| {
                s.resolve_in(pos, b, text)
            });
        }
        return Err(NotationError::Syntax(text.to_string()));
    }
    // Non-ASCII: Korean coordinates, Chinese, full-width WXF, `i3卒h3`.
    if t == korean::PASS || first.is_some_and(|c| c.is_ascii_digit()) {
        if let Ok(k) = korean::parse(t) {
            return k.resolve(pos, text);
        }
    }
    if let Ok(v) = chinese::parse(t) {
        return resolve_vertical(pos, std::iter::once(&v), text);
    }
    if let Ok(r) = wxf::parse(t) {
        return resolve_vertical(pos, r.iter(), text);
    }
    if let Some(l) = korean::parse_lettered(t) {
        let c = l.squares;
        let role_at = |sq: Option<Square>| sq.and_then(|s| pos.board().piece_at(s)).map(|p| p.role);
        return resolve_based(base, remember, c.forced_base(), text, |b| {
            c.to_move(b, pos)
                .filter(|m| {
                    is_legal(pos, *m)
                        && role_at(m.from()) == Some(l.role)
                        && l.captured.is_none_or(|r| role_at(m.to()) == Some(r))
                })
                .ok_or_else(|| NotationError::Illegal(text.to_string()))
        });
    }
    if t.chars()
        .all(|c| c.is_ascii() || ('\u{FF01}'..='\u{FF5E}').contains(&c))
    {
        // Full-width coordinates or SAN: fold and read again.
        let folded: String = t
            .chars()
            .map(|c| match c {
                '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
                c => c,
            })
            .collect();
        if folded.is_ascii() {
            return read_with(pos, &folded, base, remember).map_err(|e| match e {
                NotationError::Syntax(_) => NotationError::Syntax(text.to_string()),
                NotationError::Illegal(_) => NotationError::Illegal(text.to_string()),
                NotationError::Ambiguous(_) => NotationError::Ambiguous(text.to_string()),
            });
        }
    }
    Err(NotationError::Syntax(text.to_string()))
}
