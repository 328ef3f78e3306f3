//! A book as one game with variations (`qipu book dump --pgn`): from each start position
//! the book's moves, heaviest first (the first is the main line, the others variations),
//! each move's weight and W/D/L in a `{comment}`, every line followed down the book until no
//! move is left, `depth` plies are played, or the position was already written out at that
//! ply or nearer the start (a transposition or a loop: the line stops there). The moves of a
//! position are those a probe finds ([`Index::moves`]: its own, else its mirror image's).
//!
//! ```
//! use qipu::book::{build, pgn, qipu::{write, QipuKeys}, Book, BookGame, BookOptions, Contents, Format};
//! use qipu::rules::{AnyPosition, Move, Variant};
//! let game = BookGame {
//!     start: AnyPosition::new(Variant::Xiangqi),
//!     moves: vec!["h2e2".parse::<Move>()?, "h9g7".parse()?],
//!     result: None,
//! };
//! let mut opts = BookOptions::everything(Format::Qipu);
//! opts.mirror = qipu::book::MirrorMode::Keep;
//! let built = build::<QipuKeys>([Ok(game)].into_iter(), &opts)?;
//! let mut bytes = Vec::new();
//! write(&built, &mut bytes)?;
//! let c = Contents::read(&Book::from_bytes(&bytes)?, &[])?;
//! let games = pgn::games(&c, &pgn::PgnOptions::default(), "book.qbk");
//! assert_eq!(games.len(), 1);
//! let main: Vec<&str> = games[0].moves.iter().map(|m| m.text.as_str()).collect();
//! assert_eq!(main, ["h2e2", "h9g7"]);
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashMap;

use super::{start_positions, Contents, Index, ProbeMove};
use crate::{
    formats::{Game, MoveNode, Source},
    rules::{AnyPosition, JanggiRules, Variant},
};

/// Lines never go deeper than this many plies (a bound on the recursion).
pub const MAX_PLIES: u32 = 400;

/// What to write.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PgnOptions {
    /// Plies from the start (`None`: [`MAX_PLIES`]).
    pub depth: Option<u32>,
    /// Moves of a smaller weight are left out (and the lines behind them).
    pub min_weight: Option<i64>,
}

/// The comment of a book move: its weight, games and W/D/L where the book holds them, and
/// the engine mark.
pub fn comment(m: &ProbeMove) -> String {
    let mut text = format!("weight {}", m.weight);
    if let Some(c) = m.counts {
        if let Some(g) = c.games {
            text.push_str(&format!(", games {g}"));
        }
        text.push_str(&format!(", W/D/L {}/{}/{}", c.wins, c.draws, c.losses));
    }
    if m.engine {
        text.push_str(", engine");
    }
    text
}

/// The walk: what is written out, and at which ply each position was.
struct Tree<'a> {
    c: &'a Contents,
    index: Index,
    opts: PgnOptions,
    /// Position key → the nearest ply it was expanded at.
    expanded: HashMap<u64, u32>,
}

impl Tree<'_> {
    /// The book's moves at `pos`, heaviest first (ties in move order), as kept by the options.
    fn moves(&self, pos: &AnyPosition) -> Vec<ProbeMove> {
        let mut moves: Vec<ProbeMove> = self
            .index
            .moves(self.c, pos)
            .into_iter()
            .filter(|m| self.opts.min_weight.is_none_or(|w| m.weight >= w))
            .filter(|m| pos.is_legal(m.mv))
            .collect();
        moves.sort_by_key(|m| (std::cmp::Reverse(m.weight), m.mv));
        moves
    }

    /// The line from `pos` at `ply`: its main move, the others as that move's variations.
    fn line(&mut self, pos: &AnyPosition, ply: u32) -> Vec<MoveNode> {
        let limit = self.opts.depth.unwrap_or(MAX_PLIES).min(MAX_PLIES);
        if ply >= limit || self.expanded.get(&pos.key()).is_some_and(|&p| p <= ply) {
            return Vec::new();
        }
        self.expanded.insert(pos.key(), ply);
        let moves = self.moves(pos);
        let mut lines: Vec<Vec<MoveNode>> = moves
            .iter()
            .map(|m| {
                let mut node = MoveNode::new(m.mv.to_string());
                node.comment = Some(comment(m));
                let mut child = pos.clone();
                child.play_unchecked(m.mv);
                let mut line = vec![node];
                line.extend(self.line(&child, ply + 1));
                line
            })
            .collect();
        if lines.is_empty() {
            return Vec::new();
        }
        let mut main = lines.remove(0);
        main[0].variations = lines;
        main
    }
}

/// The book as games, one per start position that holds moves (Xiangqi: one; Janggi: a
/// formation pair each, with its FEN). `file` names the book in the `Event` tag.
pub fn games(c: &Contents, opts: &PgnOptions, file: &str) -> Vec<Game> {
    let mut tree = Tree {
        c,
        index: Index::new(c),
        opts: *opts,
        expanded: HashMap::new(),
    };
    let mut out = Vec::new();
    for (i, start) in start_positions(c.variant).into_iter().enumerate() {
        let start = start.with_janggi_rules(JanggiRules::SERVER);
        let moves = tree.line(&start, 0);
        if moves.is_empty() {
            continue;
        }
        let mut g = Game::new(
            c.variant,
            Source {
                file: file.to_string(),
                index: i,
            },
        );
        g.tags.event = Some(format!("qipu book dump: {file}"));
        if c.variant == Variant::Janggi {
            g.start_fen = Some(start.fen());
        }
        g.moves = moves;
        out.push(g);
    }
    out
}
