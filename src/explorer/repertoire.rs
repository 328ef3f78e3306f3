//! A player's repertoire: their games to a depth as a tree of lines from each start (one
//! tree per side the player had and per start position: Janggi games start from their
//! formations), each move with the games that played it and the player's results; the weak
//! lines (where the player scores furthest below their average on that side); and the
//! repertoire as PGN, one game per tree, the most played line as the main line and the
//! others as variations, each move's games and score in a comment.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{dossier::side_word, json::PlayerJson, notations, Error, EXPLORE_RULES};
use crate::{
    formats::{write::write_pgn, Game, MoveNode, Source},
    notation::{render, Notation},
    rules::{AnyPosition, Color, Move, Variant},
    store::{PersonGame, PlayerCounts, StoreError},
};

/// Most weak lines a dossier lists.
pub const WEAK_LINES: usize = 10;

/// One move of the repertoire, with what followed it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RepertoireMove {
    /// The move, in coordinates (`h2e2`).
    #[serde(rename = "move")]
    pub mv: String,
    /// The move in the game's other notations (`wxf`, `chinese`; `korean`).
    pub notation: BTreeMap<&'static str, String>,
    /// Who played it: `player` or `opponent`.
    pub by: &'static str,
    /// The games that played it, with the player's results in them.
    #[serde(flatten)]
    pub results: PlayerJson,
    /// The moves played next, most games first (those with at least `min_games` games).
    pub moves: Vec<RepertoireMove>,
}

/// The repertoire from one start, as one side.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RepertoireTree {
    /// The game.
    pub variant: &'static str,
    /// The start position (`null`: the standard start).
    pub fen: Option<String>,
    /// Janggi: the formations of the start, Cho's first (`마상상마/상마마상`), as tagged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub formations: Option<String>,
    /// The games from this start, with the player's results.
    #[serde(flatten)]
    pub results: PlayerJson,
    /// The first moves, most games first.
    pub moves: Vec<RepertoireMove>,
}

/// The repertoire as each side, most games first.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Repertoire {
    /// As Red/Cho.
    pub first: Vec<RepertoireTree>,
    /// As Black/Han.
    pub second: Vec<RepertoireTree>,
}

/// A line where the player scores below their average on that side.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WeakLine {
    /// The side the player had: `first` or `second`.
    pub side: &'static str,
    /// The start (`null`: the standard start).
    pub fen: Option<String>,
    /// The line from the start, in coordinates.
    pub moves: Vec<String>,
    /// The line in the game's notation (WXF for Xiangqi, Korean for Janggi).
    pub notation: Vec<String>,
    /// The games that played the line.
    pub games: u64,
    /// The player's score in them (over the decided games).
    pub score: f64,
    /// The player's score on that side over all their games.
    pub average: f64,
    /// `score - average`.
    pub delta: f64,
}

/// A node of the tree being counted: a start (no move) or a move.
struct Node {
    mv: Option<Move>,
    counts: PlayerCounts,
    children: Vec<usize>,
}

/// A start's tree being counted.
struct Root {
    side: Color,
    variant: Variant,
    fen: Option<String>,
    formations: Option<String>,
    node: usize,
}

/// The primary notation of a game: WXF for Xiangqi, Korean for Janggi.
fn primary(variant: Variant) -> &'static str {
    match variant {
        Variant::Xiangqi => "wxf",
        Variant::Janggi => "korean",
    }
}

/// What the JSON walk needs beside the tree.
struct Walk<'a> {
    nodes: &'a [Node],
    side: Color,
    min_games: u64,
    average: Option<f64>,
    fen: &'a Option<String>,
    weak: &'a mut Vec<WeakLine>,
}

impl Walk<'_> {
    /// The moves after node `at` (position `pos`, reached by `line`), most games first.
    fn children(
        &mut self,
        at: usize,
        pos: &AnyPosition,
        line: &mut Vec<(String, String)>,
    ) -> Result<Vec<RepertoireMove>, Error> {
        let mut kids: Vec<usize> = self.nodes[at]
            .children
            .iter()
            .copied()
            .filter(|&c| self.nodes[c].counts.games >= self.min_games)
            .collect();
        kids.sort_by_key(|&c| {
            let n = &self.nodes[c];
            (
                std::cmp::Reverse(n.counts.games),
                n.mv.map(|m| m.to_string()),
            )
        });
        let mut out = Vec::with_capacity(kids.len());
        for c in kids {
            let node = &self.nodes[c];
            let Some(mv) = node.mv else { continue };
            let notation = notations(pos, mv);
            let mut next = pos.clone();
            next.play(mv).map_err(|e| {
                Error::Store(StoreError::Corrupt(format!("repertoire move {mv}: {e}")))
            })?;
            let text = notation
                .get(primary(pos.variant()))
                .cloned()
                .unwrap_or_else(|| mv.to_string());
            line.push((mv.to_string(), text));
            let results = PlayerJson::from(&node.counts);
            self.note_weak(&results, self.nodes[at].counts.games, line);
            let moves = self.children(c, &next, line)?;
            line.pop();
            out.push(RepertoireMove {
                mv: mv.to_string(),
                notation,
                by: if pos.turn() == self.side {
                    "player"
                } else {
                    "opponent"
                },
                results,
                moves,
            });
        }
        Ok(out)
    }

    /// Keeps a line as a weak one when the player scores below average in it (and it is not
    /// its parent's games again: a line's only continuation adds nothing).
    fn note_weak(&mut self, r: &PlayerJson, parent_games: u64, line: &[(String, String)]) {
        let (Some(score), Some(average)) = (r.score, self.average) else {
            return;
        };
        if r.games < self.min_games || r.games == parent_games || score >= average {
            return;
        }
        self.weak.push(WeakLine {
            side: side_word(self.side),
            fen: self.fen.clone(),
            moves: line.iter().map(|l| l.0.clone()).collect(),
            notation: line.iter().map(|l| l.1.clone()).collect(),
            games: r.games,
            score,
            average,
            delta: score - average,
        });
    }
}

/// Counts the games into trees (a tree per side and start), to `depth` plies.
fn count(games: &[PersonGame], depth: usize) -> (Vec<Node>, Vec<Root>) {
    let mut nodes: Vec<Node> = Vec::new();
    let mut roots: Vec<Root> = Vec::new();
    for g in games {
        let ratings = [g.game.first_rating, g.game.second_rating];
        let r = match roots
            .iter()
            .position(|r| r.side == g.side && r.variant == g.variant && r.fen == g.start_fen)
        {
            Some(r) => r,
            None => {
                nodes.push(Node {
                    mv: None,
                    counts: PlayerCounts::default(),
                    children: Vec::new(),
                });
                roots.push(Root {
                    side: g.side,
                    variant: g.variant,
                    fen: g.start_fen.clone(),
                    formations: (g.variant == Variant::Janggi)
                        .then(|| g.game.opening_label(g.variant))
                        .flatten(),
                    node: nodes.len() - 1,
                });
                roots.len() - 1
            }
        };
        let mut at = roots[r].node;
        nodes[at].counts.add_game(g.side, g.game.result, ratings);
        for &mv in g.moves.iter().take(depth) {
            let found = nodes[at]
                .children
                .iter()
                .copied()
                .find(|&c| nodes[c].mv == Some(mv));
            let c = match found {
                Some(c) => c,
                None => {
                    nodes.push(Node {
                        mv: Some(mv),
                        counts: PlayerCounts::default(),
                        children: Vec::new(),
                    });
                    let c = nodes.len() - 1;
                    nodes[at].children.push(c);
                    c
                }
            };
            nodes[c].counts.add_game(g.side, g.game.result, ratings);
            at = c;
        }
    }
    (nodes, roots)
}

/// The repertoire of some games of one player to `depth` plies, listing the moves with at
/// least `min_games` games, and its weak lines (at least `min_games` games, the player's
/// score below `averages` of that side, furthest below first, at most [`WEAK_LINES`]).
///
/// # Errors
/// [`Error::Store`] if a stored start or move does not replay.
pub(super) fn repertoire(
    games: &[PersonGame],
    depth: usize,
    min_games: u64,
    averages: [Option<f64>; 2],
) -> Result<(Repertoire, Vec<WeakLine>), Error> {
    let (nodes, roots) = count(games, depth);
    let mut rep = Repertoire::default();
    let mut weak = Vec::new();
    for root in &roots {
        let start = match &root.fen {
            None => AnyPosition::new(root.variant),
            Some(f) => AnyPosition::from_fen(root.variant, f).map_err(|e| {
                Error::Store(StoreError::Corrupt(format!("repertoire start {f}: {e}")))
            })?,
        }
        .with_janggi_rules(EXPLORE_RULES);
        let mut walk = Walk {
            nodes: &nodes,
            side: root.side,
            min_games,
            average: averages[usize::from(root.side == Color::Second)],
            fen: &root.fen,
            weak: &mut weak,
        };
        let moves = walk.children(root.node, &start, &mut Vec::new())?;
        let tree = RepertoireTree {
            variant: root.variant.name(),
            fen: root.fen.clone(),
            formations: root.formations.clone(),
            results: PlayerJson::from(&nodes[root.node].counts),
            moves,
        };
        match root.side {
            Color::First => rep.first.push(tree),
            Color::Second => rep.second.push(tree),
        }
    }
    for trees in [&mut rep.first, &mut rep.second] {
        trees.sort_by_key(|t| std::cmp::Reverse(t.results.games));
    }
    weak.sort_by(|a, b| {
        a.delta
            .total_cmp(&b.delta)
            .then(b.games.cmp(&a.games))
            .then(a.moves.cmp(&b.moves))
    });
    weak.truncate(WEAK_LINES);
    Ok((rep, weak))
}

/// `N games, score S%` (or no score without a decided game).
fn comment(r: &PlayerJson) -> String {
    let s = if r.games == 1 { "" } else { "s" };
    match r.score {
        Some(p) => format!("{} game{s}, score {:.0}%", r.games, p * 100.0),
        None => format!("{} game{s}", r.games),
    }
}

/// A line of the tree as PGN moves: the most played move, its alternatives as variations,
/// then the most played line after it.
fn pgn_line(moves: &[RepertoireMove]) -> Vec<MoveNode> {
    let Some((main, others)) = moves.split_first() else {
        return Vec::new();
    };
    let node = |m: &RepertoireMove| MoveNode {
        comment: Some(comment(&m.results)),
        ..MoveNode::new(m.mv.clone())
    };
    let mut first = node(main);
    first.variations = others
        .iter()
        .map(|o| {
            let mut v = vec![node(o)];
            v.extend(pgn_line(&o.moves));
            v
        })
        .collect();
    let mut out = vec![first];
    out.extend(pgn_line(&main.moves));
    out
}

/// The repertoire as PGN: one game per tree (as Red/Cho first), the player on their side,
/// `Event` saying whose repertoire it is, moves in coordinates (`Format "ICCS"`).
///
/// # Errors
/// [`Error::Store`] if a tree's line does not replay (it was read from stored games).
pub fn repertoire_pgn(player: &str, rep: &Repertoire) -> Result<String, Error> {
    let mut out = String::new();
    for (side, trees) in [(Color::First, &rep.first), (Color::Second, &rep.second)] {
        for (i, tree) in trees.iter().enumerate() {
            let variant = if tree.variant == Variant::Janggi.name() {
                Variant::Janggi
            } else {
                Variant::Xiangqi
            };
            let mut g = Game::new(
                variant,
                Source {
                    file: "repertoire".into(),
                    index: i,
                },
            );
            let side_name = match (variant, side) {
                (Variant::Xiangqi, Color::First) => "Red",
                (Variant::Xiangqi, Color::Second) => "Black",
                (Variant::Janggi, Color::First) => "Cho",
                (Variant::Janggi, Color::Second) => "Han",
            };
            g.tags.event = Some(format!("Repertoire of {player} as {side_name}"));
            match side {
                Color::First => g.tags.first = Some(player.to_string()),
                Color::Second => g.tags.second = Some(player.to_string()),
            }
            g.start_fen = tree.fen.clone();
            g.comment = Some(comment(&tree.results));
            g.moves = pgn_line(&tree.moves);
            let text = write_pgn(&g, &|p, m| render(p, m, Notation::Coord), Some("ICCS"))
                .map_err(|e| Error::Store(StoreError::Corrupt(format!("repertoire: {e}"))))?;
            out.push_str(&text);
        }
    }
    Ok(out)
}
