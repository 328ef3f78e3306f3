//! Opening names: the ECCO table (`data/ecco-names.tsv`, see `data/README.md` for its source),
//! how deep each ECCO code's line is (`data/ecco-depth.tsv`), and the Janggi formations.
//!
//! This module owns the naming rule of a position ([`name_position`]); it reads the rules (the
//! board of the position named) and nothing else: the labels come from the caller.

use std::{collections::HashMap, sync::OnceLock};

use serde::{Deserialize, Serialize};

use crate::rules::{AnyPosition, Color, Variant};

/// An opening name.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Opening {
    /// ECCO code, e.g. `C48` (empty for Janggi).
    pub ecco: String,
    /// Name.
    pub name: String,
}

const ECCO_TSV: &str = include_str!("../../data/ecco-names.tsv");
const DEPTH_TSV: &str = include_str!("../../data/ecco-depth.tsv");

/// The most plies an ECCO classifier reads (xqbase's `EccoIndex`, `specs/formats.md` §8): the
/// depth of a code the depth table does not list.
pub const ECCO_PLIES: usize = 20;

/// How many plies an ECCO code's line takes, as the games show it (`data/ecco-depth.tsv`,
/// written by `scripts/ecco_oracle.py depth` from the ccpd corpus: for each game with the
/// code, the first ply at which two thirds of the games with the same first moves carry the
/// code; the median over its games). A code the table does not list takes [`ECCO_PLIES`].
///
/// ```
/// use qipu::explorer::{ecco_depth, ECCO_PLIES};
/// assert_eq!(ecco_depth("A02"), 1); // 边马局: 马二进一 (or 马八进九)
/// assert_eq!(ecco_depth("D50"), 2); // 中炮对列炮
/// assert!(ecco_depth("C77") > 10);
/// assert_eq!(ecco_depth("Z99"), ECCO_PLIES);
/// ```
pub fn ecco_depth(code: &str) -> usize {
    depth_table().get(code).copied().unwrap_or(ECCO_PLIES)
}

/// The depth table, parsed once: code → plies.
fn depth_table() -> &'static HashMap<&'static str, usize> {
    static TABLE: OnceLock<HashMap<&str, usize>> = OnceLock::new();
    TABLE.get_or_init(|| {
        DEPTH_TSV
            .lines()
            .skip(1)
            .filter_map(|line| {
                let mut f = line.split('\t');
                Some((f.next()?, f.next()?.trim().parse().ok()?))
            })
            .collect()
    })
}

/// How deep a beginning of opening names is: the depth of the shallowest code of the table
/// whose opening name begins with it ([`ECCO_PLIES`] if none does).
fn prefix_depth(prefix: &[char]) -> usize {
    ecco_table()
        .iter()
        .filter(|(_, (opening, _))| {
            let mut chars = opening.chars();
            prefix.iter().all(|c| chars.next() == Some(*c))
        })
        .map(|(code, _)| ecco_depth(code))
        .min()
        .unwrap_or(ECCO_PLIES)
}

/// How many plies into a game a position is, for its name: the ply its move counters say
/// (the start's move number plus the moves played), or, if more, the fewest plies that put
/// its pieces where they stand (each piece off a start square of its own kind has moved at
/// least once), so that a FEN pasted with `0 1` counters is not taken for the start.
///
/// ```
/// use qipu::{explorer::position_ply, notation::Line, rules::{AnyPosition, JanggiRules, Variant}};
/// let line = Line::parse(Variant::Xiangqi, None, &["h2e2 h9g7 h0g2"], JanggiRules::default()).unwrap();
/// assert_eq!(position_ply(&line.position), 3);
/// let pasted = "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R b - - 0 1";
/// assert_eq!(position_ply(&AnyPosition::from_fen(Variant::Xiangqi, pasted).unwrap()), 3);
/// ```
pub fn position_ply(pos: &AnyPosition) -> usize {
    let board = pos.board();
    let second = usize::from(pos.turn() == Color::Second);
    let counted = 2 * (board.fullmoves().max(1) as usize - 1) + second;
    let start = AnyPosition::new(pos.variant());
    let mut moved = [0usize; 2];
    for (sq, piece) in board.pieces() {
        if start.board().piece_at(sq) != Some(piece) {
            moved[piece.color.index()] += 1;
        }
    }
    let [first, other] = moved;
    // After 2k plies each side has moved k times; after 2k + 1 the first player k + 1 times.
    let fewest = if second == 1 {
        (2 * first).saturating_sub(1).max(2 * other + 1)
    } else {
        2 * first.max(other)
    };
    counted.max(fewest)
}

/// The name of an ECCO code (`C48` → `中炮过河车互进七兵对屏风马平炮兑车 — 红仕角炮对黑退边炮`),
/// `None` if the table has no such code.
///
/// ```
/// assert_eq!(qipu::explorer::ecco_name("A01").as_deref(), Some("上仕局"));
/// assert_eq!(qipu::explorer::ecco_name("Z99"), None);
/// ```
pub fn ecco_name(code: &str) -> Option<String> {
    let &(opening, variation) = ecco_table().get(code)?;
    Some(if variation.is_empty() {
        opening.to_string()
    } else {
        format!("{opening} — {variation}")
    })
}

/// The ECCO table, parsed once: code → (opening, variation).
fn ecco_table() -> &'static HashMap<&'static str, (&'static str, &'static str)> {
    static TABLE: OnceLock<HashMap<&str, (&str, &str)>> = OnceLock::new();
    TABLE.get_or_init(|| {
        ECCO_TSV
            .lines()
            .skip(1)
            .filter_map(|line| {
                let mut f = line.split('\t');
                let code = f.next()?;
                let opening = f.next().unwrap_or("").trim();
                Some((code, (opening, f.next().unwrap_or("").trim())))
            })
            .collect()
    })
}

/// Turns a stored opening label into an [`Opening`]: an ECCO code with its name (Xiangqi), or
/// a `first/second` formation pair (Janggi, `ecco` empty).
pub fn opening_from_label(variant: Variant, label: &str) -> Opening {
    match variant {
        Variant::Xiangqi => Opening {
            ecco: label.to_string(),
            name: ecco_name(label).unwrap_or_default(),
        },
        Variant::Janggi => {
            let (cho, han) = label.split_once('/').unwrap_or((label, "?"));
            Opening {
                ecco: String::new(),
                name: format!("초 {cho} / 한 {han}"),
            }
        }
    }
}

/// Names a position `ply` plies into the game ([`position_ply`]) from the opening labels of
/// every game through it (label → games; the caller passes all of them, whatever its filter,
/// so that the name is the position's).
///
/// Janggi: the most frequent formation pair. Xiangqi: ECCO classifies move sequences, not
/// positions, so a position is named only as far as its games agree, and never deeper than
/// the position: a class whose line is longer than `ply` ([`ecco_depth`]) is not its name. The
/// ECCO code that at least two thirds of the labelled games carry names it fully, if its line
/// is at most `ply` plies long. Otherwise the name is the longest beginning of the opening
/// names (the table's first column, e.g. `仙人指路…`) that two thirds of the games share and
/// that some code at most `ply` plies deep begins with, if it is at least two characters long,
/// with the common prefix of their codes; otherwise the position has no name. The start
/// position, where every opening passes, is not given one.
///
/// ```
/// use std::{collections::HashMap, sync::OnceLock};
/// use qipu::{explorer::name_position, rules::Variant};
/// let labels = |v: &[(&str, u64)]| -> HashMap<String, u64> {
///     v.iter().map(|(k, n)| (k.to_string(), *n)).collect()
/// };
/// assert_eq!(name_position(Variant::Xiangqi, &labels(&[("A00", 3), ("C42", 3), ("E10", 3)]), 20), None);
/// assert_eq!(name_position(Variant::Xiangqi, &labels(&[("A01", 8), ("E10", 2)]), 20).unwrap().ecco, "A01");
/// let shared = name_position(Variant::Xiangqi, &labels(&[("C41", 4), ("C42", 4), ("A00", 1)]), 20).unwrap();
/// assert_eq!((shared.ecco.as_str(), shared.name.as_str()), ("C4", "中炮过河车互进七兵对屏风马平炮兑车"));
/// // Two plies in, the games' 13-ply variations are not the position's name: only 中炮 is
/// // (the codes whose names begin with it span B, C and D).
/// let two = name_position(Variant::Xiangqi, &labels(&[("C41", 4), ("C42", 4), ("A00", 1)]), 2).unwrap();
/// assert_eq!((two.ecco.as_str(), two.name.as_str()), ("", "中炮"));
/// // A 14-ply variation (五七炮…) two plies in: no name.
/// assert_eq!(name_position(Variant::Xiangqi, &labels(&[("C77", 9)]), 2), None);
/// assert_eq!(name_position(Variant::Xiangqi, &labels(&[("C77", 9)]), 20).unwrap().ecco, "C77");
/// ```
pub fn name_position(
    variant: Variant,
    labels: &HashMap<String, u64>,
    ply: usize,
) -> Option<Opening> {
    // Games without a label say nothing about the opening.
    let labels: Vec<(&String, u64)> = labels
        .iter()
        .filter(|(l, _)| !l.is_empty())
        .map(|(l, n)| (l, *n))
        .collect();
    let most = labels
        .iter()
        .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(a.0)))?;
    if variant == Variant::Janggi {
        return Some(opening_from_label(variant, most.0));
    }
    if ply == 0 {
        return None;
    }
    let total: u64 = labels.iter().map(|(_, n)| n).sum();
    let enough = |n: u64| 3 * n >= 2 * total;
    if enough(most.1) && ecco_depth(most.0) <= ply {
        return Some(opening_from_label(variant, most.0));
    }
    let named: Vec<(&String, Vec<char>, u64)> = labels
        .iter()
        .filter_map(|(code, n)| Some((*code, ecco_family(code)?.chars().collect(), *n)))
        .collect();
    // Grow the shared beginning one character at a time while two thirds of the games keep it.
    let mut prefix: Vec<char> = Vec::new();
    loop {
        let mut next: HashMap<char, u64> = HashMap::new();
        for (_, name, n) in &named {
            if name.len() > prefix.len() && name.starts_with(&prefix) {
                *next.entry(name[prefix.len()]).or_default() += n;
            }
        }
        match next
            .into_iter()
            .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(&a.0)))
        {
            Some((c, n)) if enough(n) => {
                prefix.push(c);
                if prefix_depth(&prefix) > ply {
                    prefix.pop();
                    break;
                }
            }
            _ => break,
        }
    }
    if prefix.len() < 2 {
        return None;
    }
    // The code of a name shared in part: what the table's codes with that name have in common.
    let codes: Vec<&str> = ecco_table()
        .iter()
        .filter(|(_, (opening, _))| {
            opening
                .chars()
                .take(prefix.len())
                .eq(prefix.iter().copied())
        })
        .map(|(code, _)| *code)
        .collect();
    let first = codes.first().copied().unwrap_or("");
    let common = codes.iter().fold(first.len(), |len, c| {
        first
            .bytes()
            .zip(c.bytes())
            .take(len)
            .take_while(|(a, b)| a == b)
            .count()
    });
    Some(Opening {
        ecco: first[..common].to_string(),
        name: prefix.into_iter().collect(),
    })
}

/// The opening family of an ECCO code: the first column of the table.
fn ecco_family(code: &str) -> Option<&'static str> {
    ecco_table().get(code).map(|&(opening, _)| opening)
}
