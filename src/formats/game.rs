//! The game model every reader produces: tags, start position, moves as written, variations
//! and comments, and where the game came from. Readers do not check legality; see
//! [`super::replay`].

use super::facts::{EngineEval, Mode, Speed, Termination, TimeControl};
use crate::{
    notation::coord::RankBase,
    rules::{Outcome, Variant},
};

/// One move as written in the source, with what hangs off it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveNode {
    /// The move text exactly as the source wrote it (any notation), or canonical coordinates
    /// (`h2e2`, ranks 0–9; `pass`) from binary formats.
    pub text: String,
    /// Comment after the move.
    pub comment: Option<String>,
    /// Alternatives to this move: each is a line that starts in the position before it.
    pub variations: Vec<Vec<MoveNode>>,
    /// An engine's view of the position before this move, when the record carries one.
    pub eval: Option<EngineEval>,
}

impl MoveNode {
    /// A node with text only.
    pub fn new(text: impl Into<String>) -> MoveNode {
        MoveNode {
            text: text.into(),
            comment: None,
            variations: Vec::new(),
            eval: None,
        }
    }
}

/// Normalised header information. Sides are named by move order: `first` is Red (Xiangqi) or
/// Cho (Janggi), `second` is Black or Han.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tags {
    /// Event or tournament.
    pub event: Option<String>,
    /// Place.
    pub site: Option<String>,
    /// Round.
    pub round: Option<String>,
    /// Date, normalised to `YYYY`, `YYYY-MM` or `YYYY-MM-DD`.
    pub date: Option<String>,
    /// First player's name.
    pub first: Option<String>,
    /// Second player's name.
    pub second: Option<String>,
    /// First player's team.
    pub first_team: Option<String>,
    /// Second player's team.
    pub second_team: Option<String>,
    /// First player's rating.
    pub first_rating: Option<u32>,
    /// Second player's rating.
    pub second_rating: Option<u32>,
    /// Result; `None` when unknown or unfinished.
    pub result: Option<Outcome>,
    /// ECCO code (Xiangqi), e.g. `C48`.
    pub ecco: Option<String>,
    /// Opening name.
    pub opening: Option<String>,
    /// Variation name.
    pub variation: Option<String>,
    /// Janggi formation of the first player (Cho), as written (e.g. `마상상마`).
    pub first_formation: Option<String>,
    /// Janggi formation of the second player (Han).
    pub second_formation: Option<String>,
    /// The clock, when the record gives one.
    pub time_control: Option<TimeControl>,
    /// Speed category: from the clock, or as the record states it.
    pub speed: Option<Speed>,
    /// Rated or casual, when the record says.
    pub mode: Option<Mode>,
    /// How the game ended, when the record says.
    pub termination: Option<Termination>,
    /// Every tag as found (name, decoded value), including those normalised above.
    pub raw: Vec<(String, String)>,
}

/// Where a game came from: the file (path inside a zip written `archive.zip:inner/path`) and
/// its 0-based index in that file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Source {
    /// File path.
    pub file: String,
    /// 0-based index of the game in the file.
    pub index: usize,
}

/// A game as read from a record, not yet replayed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    /// The game.
    pub variant: Variant,
    /// Header.
    pub tags: Tags,
    /// Start position if not the standard one.
    pub start_fen: Option<String>,
    /// The main line.
    pub moves: Vec<MoveNode>,
    /// Comment before the first move.
    pub comment: Option<String>,
    /// Rank numbering of coordinate moves when the reader knows it (binary formats: 0–9).
    pub rank_base: Option<RankBase>,
    /// Where it came from.
    pub source: Source,
    /// For text records: the byte offset in the file's decoded text where the game starts
    /// (its first tag, or its line), carried into the errors of its replay. `None` for
    /// binary records.
    pub offset: Option<u32>,
}

impl Game {
    /// An empty game of a variant from the standard start.
    pub fn new(variant: Variant, source: Source) -> Game {
        Game {
            variant,
            tags: Tags::default(),
            start_fen: None,
            moves: Vec::new(),
            comment: None,
            rank_base: None,
            source,
            offset: None,
        }
    }
}
