//! Shared pieces of the board-based Xiangqi readers (XQF, CCBridge, DhtmlXQ): a board built
//! square by square, the start FEN it implies, canonical move text, the move tree that binary
//! formats store in pre-order, and small header helpers (dates, results).

use crate::notation::coord::{parse_coord, RankBase};
use crate::rules::{AnyPosition, Color, Outcome, Piece, Role, Setup, Square, Variant};

use super::game::{Game, MoveNode};

/// The sixteen pieces of one side in the order XQF and DhtmlXQ list them:
/// 车马相仕帅仕相马车炮炮兵兵兵兵兵.
pub(crate) const PIECE_ORDER: [Role; 16] = [
    Role::Rook,
    Role::Horse,
    Role::Elephant,
    Role::Advisor,
    Role::King,
    Role::Advisor,
    Role::Elephant,
    Role::Horse,
    Role::Rook,
    Role::Cannon,
    Role::Cannon,
    Role::Pawn,
    Role::Pawn,
    Role::Pawn,
    Role::Pawn,
    Role::Pawn,
];

/// Deepest nesting of variations a reader accepts; deeper trees are reported as corrupt
/// (real opening trees stay far below it, and it keeps recursion bounded).
pub(crate) const MAX_VARIATION_DEPTH: usize = 400;

/// A board filled square by square (file 0–8 from Red's left, rank 0–9 from Red's side).
#[derive(Clone)]
pub(crate) struct Board90 {
    setup: Setup,
}

impl Board90 {
    /// An empty board.
    pub(crate) fn empty() -> Board90 {
        Board90 {
            setup: Setup::empty(),
        }
    }

    /// Puts a piece on a square.
    ///
    /// # Errors
    /// A reason when the square is off the board or already taken.
    pub(crate) fn put(&mut self, file: u8, rank: u8, piece: Piece) -> Result<(), String> {
        let sq = Square::from_coords(file, rank)
            .ok_or_else(|| format!("piece {} off the board", piece.char()))?;
        if let Some(other) = self.setup.board[sq.index()] {
            return Err(format!(
                "two pieces ({} and {}) on {sq}",
                other.char(),
                piece.char()
            ));
        }
        self.setup.board[sq.index()] = Some(piece);
        Ok(())
    }

    /// The piece on a square, if any.
    pub(crate) fn at(&self, sq: Square) -> Option<Piece> {
        self.setup.board[sq.index()]
    }

    /// The side to move: the colour of the piece on the first move's origin when there is
    /// one (what the writers of these formats assume), else `fallback`.
    pub(crate) fn turn_for(&self, first: Option<&MoveNode>, fallback: Color) -> Color {
        first
            .and_then(|m| parse_square(m.text.get(0..2)?))
            .and_then(|sq| self.at(sq))
            .map_or(fallback, |p| p.color)
    }

    /// The start FEN, or `None` for the standard start with Red to move.
    pub(crate) fn start_fen(&self, turn: Color) -> Option<String> {
        let mut setup = self.setup.clone();
        setup.turn = turn;
        let fen = setup.to_fen();
        (fen != Variant::Xiangqi.start_fen()).then_some(fen)
    }
}

/// Reads a canonical square such as `h2`.
fn parse_square(text: &str) -> Option<Square> {
    let b = text.as_bytes();
    let file = b.first()?.checked_sub(b'a')?;
    let rank = b.get(1)?.checked_sub(b'0')?;
    Square::from_coords(file, rank)
}

/// Canonical move text from (file, rank) pairs, ranks 0–9 from Red's side. A coordinate off
/// the board is written `?` plus the raw number so that replay reports it at its ply.
pub(crate) fn move_text(from: (u8, u8), to: (u8, u8)) -> String {
    let mut s = String::with_capacity(4);
    for (f, r) in [from, to] {
        if f < 9 && r < 10 {
            s.push((b'a' + f) as char);
            s.push((b'0' + r) as char);
        } else {
            s.push('?');
            s.push_str(&format!("{f},{r}"));
        }
    }
    s
}

/// One record of a pre-order move tree as binary formats store it.
pub(crate) struct Record {
    /// Canonical move text.
    pub(crate) text: String,
    /// Comment after the move.
    pub(crate) comment: Option<String>,
    /// The next record continues this line (is this move's successor).
    pub(crate) has_next: bool,
    /// After this move's subtree, a record follows that is an alternative to this move.
    pub(crate) has_variation: bool,
}

struct Node {
    text: String,
    comment: Option<String>,
    child: Option<usize>,
    sibling: Option<usize>,
}

/// Where the next record goes.
#[derive(Clone, Copy)]
enum Slot {
    First,
    Child(usize),
    Sibling(usize),
}

/// Reads a pre-order tree: after a record come its successor's subtree (if `has_next`), then
/// its alternative (if `has_variation`). `next_record` yields records in file order; `None`
/// means the data ended. The first record, if any, starts the main line. Returns the main line
/// with variations attached.
///
/// # Errors
/// When the data ends while records are still announced, when a record cannot be read, or
/// when variations nest deeper than [`MAX_VARIATION_DEPTH`].
pub(crate) fn read_tree(
    expect_first: bool,
    mut next_record: impl FnMut() -> Result<Option<Record>, String>,
) -> Result<Vec<MoveNode>, String> {
    let mut nodes: Vec<Node> = Vec::new();
    let mut pending: Vec<Slot> = Vec::new();
    if expect_first {
        pending.push(Slot::First);
    }
    while let Some(slot) = pending.pop() {
        let Some(rec) = next_record()? else {
            return Err(format!(
                "data ends after {} moves while {} more are announced",
                nodes.len(),
                pending.len() + 1
            ));
        };
        let id = nodes.len();
        nodes.push(Node {
            text: rec.text,
            comment: rec.comment,
            child: None,
            sibling: None,
        });
        match slot {
            Slot::First => {}
            Slot::Child(p) => {
                if let Some(n) = nodes.get_mut(p) {
                    n.child = Some(id);
                }
            }
            Slot::Sibling(p) => {
                if let Some(n) = nodes.get_mut(p) {
                    n.sibling = Some(id);
                }
            }
        }
        if rec.has_variation {
            pending.push(Slot::Sibling(id));
        }
        if rec.has_next {
            pending.push(Slot::Child(id));
        }
    }
    if nodes.is_empty() {
        return Ok(Vec::new());
    }
    build_line(&mut nodes, 0, true, 0)
}

/// The line starting at `start` (following `child` links); each node's alternatives are the
/// lines starting at its `sibling` chain, except for the first node of a line that is itself
/// an alternative (its siblings belong to the node it is an alternative to).
fn build_line(
    nodes: &mut [Node],
    start: usize,
    first_has_siblings: bool,
    depth: usize,
) -> Result<Vec<MoveNode>, String> {
    if depth > MAX_VARIATION_DEPTH {
        return Err(format!(
            "variations nested more than {MAX_VARIATION_DEPTH} deep"
        ));
    }
    let mut line = Vec::new();
    let mut cur = Some(start);
    let mut first = true;
    // Links only point to later records (a record is linked when it is read, after the one
    // it hangs off), so following them always ends and visits each record once.
    while let Some(i) = cur {
        let Some(node) = nodes.get_mut(i) else {
            return Err("move tree links to a missing record".to_string());
        };
        let text = std::mem::take(&mut node.text);
        let comment = node.comment.take();
        let (child, sibling) = (node.child, node.sibling);
        let mut variations = Vec::new();
        if !first || first_has_siblings {
            let mut sib = sibling;
            while let Some(s) = sib {
                sib = nodes.get(s).and_then(|n| n.sibling);
                variations.push(build_line(nodes, s, false, depth + 1)?);
            }
        }
        line.push(MoveNode {
            text,
            comment,
            variations,
            eval: None,
        });
        cur = child;
        first = false;
    }
    Ok(line)
}

/// How far a game's main line replays with canonical 0–9 ranks: `None` when every move is
/// legal, else the 1-based ply of the first bad move (0 for a bad start position).
pub(crate) fn first_bad_ply(game: &Game) -> Option<usize> {
    let start = match &game.start_fen {
        Some(fen) => AnyPosition::from_fen(game.variant, fen).ok(),
        None => Some(AnyPosition::new(game.variant)),
    };
    let Some(mut pos) = start else {
        return Some(0);
    };
    for (i, node) in game.moves.iter().enumerate() {
        match parse_coord(&pos, &node.text, Some(RankBase::Zero)) {
            Ok(m) => pos.play_unchecked(m),
            Err(_) => return Some(i + 1),
        }
    }
    None
}

/// The result of the common binary result byte: 1 Red wins, 2 Black wins, 3 (and 4, seen in
/// real files) draw; anything else unknown.
pub(crate) fn result_from_byte(b: u8) -> Option<Outcome> {
    match b {
        1 => Some(Outcome::Decisive {
            winner: Color::First,
        }),
        2 => Some(Outcome::Decisive {
            winner: Color::Second,
        }),
        3 | 4 => Some(Outcome::Draw),
        _ => None,
    }
}

/// Trims a decoded header or comment string and turns CRLF into LF; `None` when nothing
/// is left.
pub(crate) fn clean(text: &str) -> Option<String> {
    let t = text.trim_matches(|c: char| c == '\0' || c.is_whitespace());
    (!t.is_empty()).then(|| t.replace("\r\n", "\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_text_marks_bad_squares() {
        assert_eq!(move_text((7, 2), (4, 2)), "h2e2");
        assert_eq!(move_text((9, 2), (4, 2)), "?9,2e2");
    }

    fn rec(text: &str, has_next: bool, has_variation: bool) -> Record {
        Record {
            text: text.to_string(),
            comment: None,
            has_next,
            has_variation,
        }
    }

    #[test]
    fn preorder_tree() {
        // main: a b c; alternative to b: x y; alternative to b also: z.
        // File order: a, b, c, x, y, z.
        let mut recs = vec![
            rec("a", true, false),
            rec("b", true, true),
            rec("c", false, false),
            rec("x", true, true),
            rec("y", false, false),
            rec("z", false, false),
        ]
        .into_iter();
        let line = read_tree(true, || Ok(recs.next())).unwrap();
        let texts: Vec<&str> = line.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(texts, ["a", "b", "c"]);
        assert_eq!(line[1].variations.len(), 2);
        assert_eq!(line[1].variations[0].len(), 2);
        assert_eq!(line[1].variations[0][1].text, "y");
        assert!(line[1].variations[0][0].variations.is_empty());
        assert_eq!(line[1].variations[1][0].text, "z");
    }

    #[test]
    fn truncated_tree_is_an_error() {
        let mut recs = vec![rec("a", true, false)].into_iter();
        assert!(read_tree(true, || Ok(recs.next())).is_err());
    }
}
