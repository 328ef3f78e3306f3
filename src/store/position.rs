//! What the store keeps of one position, and its blob encodings. No SQL here.
//!
//! A position keeps the list of games through it (links: game id and the move it played
//! there). A position with at most [`LIST_MAX`] games — four in five positions of a real
//! collection are reached by a single game — keeps nothing else (packed with its neighbours
//! in a range row, see `ranges`): its statistics are counted from those few games when
//! asked. A busier one has a `positions` row with a [`Summary`] too: per-move sums,
//! opening-label counts and its best games, so that the start position (tens of thousands of
//! games) is answered from one small blob.

use super::{
    codec::END_OF_GAME,
    read::{MoveRow, OpeningRow},
    varint::{self, Reader},
    GameCounts, StoreError,
};
use crate::rules::{Move, Outcome};

/// Positions with more games than this keep a summary.
pub const LIST_MAX: usize = 32;

/// How many best games a summary keeps (the web API's maximum `top_games`).
pub const TOP_KEPT: usize = 100;

/// A game through a position: its id and the move code it played there ([`END_OF_GAME`]
/// when it ended there).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Link {
    pub game: i64,
    pub mv: u16,
}

/// Encodes links sorted by game id: each as (id − previous id, move code), varints.
pub(super) fn encode_links(links: &[Link]) -> Vec<u8> {
    let mut out = Vec::with_capacity(links.len() * 3);
    put_links(&mut out, links, false);
    out
}

/// Appends links sorted by game id, as [`encode_links`] writes them; with `mark_last`, each
/// id difference is doubled and the last link's has 1 added, so that the list needs no
/// count before it (range rows).
pub(super) fn put_links(out: &mut Vec<u8>, links: &[Link], mark_last: bool) {
    let mut prev = 0;
    for (i, l) in links.iter().enumerate() {
        let delta = l.game.abs_diff(prev);
        if mark_last {
            varint::put(out, delta << 1 | u64::from(i + 1 == links.len()));
        } else {
            varint::put(out, delta);
        }
        varint::put(out, u64::from(l.mv));
        prev = l.game;
    }
}

/// The inverse of [`encode_links`].
pub(super) fn decode_links(bytes: &[u8]) -> Result<Vec<Link>, StoreError> {
    let mut r = Reader::new(bytes, "links");
    let mut out = Vec::with_capacity(bytes.len() / 3);
    while !r.is_empty() {
        read_link(&mut r, &mut out, false)?;
    }
    Ok(out)
}

/// Reads one link written by [`put_links`] after those already in `out`; returns whether it
/// is marked as the last (always false without `mark_last`).
pub(super) fn read_link(
    r: &mut Reader<'_>,
    out: &mut Vec<Link>,
    mark_last: bool,
) -> Result<bool, StoreError> {
    let n = r.u64()?;
    let (delta, last) = if mark_last {
        (n >> 1, n & 1 == 1)
    } else {
        (n, false)
    };
    let mv: u16 = r.int()?;
    let prev = out.last().map_or(0, |l| l.game);
    if delta == 0 && !out.is_empty() {
        return Err(StoreError::Corrupt("links: repeated game".into()));
    }
    let game = i64::try_from(delta)
        .ok()
        .and_then(|d| prev.checked_add(d))
        .ok_or_else(|| StoreError::Corrupt("links: game id overflow".into()))?;
    out.push(Link { game, mv });
    Ok(last)
}

/// The move a code stands for: `None` for [`END_OF_GAME`].
///
/// # Errors
/// [`StoreError::Corrupt`] if the code is neither.
pub(super) fn move_from_code(code: u16) -> Result<Option<Move>, StoreError> {
    if code == END_OF_GAME {
        return Ok(None);
    }
    Move::from_u16(code)
        .map(Some)
        .ok_or_else(|| StoreError::Corrupt(format!("bad move code {code}")))
}

fn move_code(m: Option<Move>) -> u16 {
    m.map_or(END_OF_GAME, Move::to_u16)
}

/// What the statistics need to know of a game.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Facts<'a> {
    pub result: Option<Outcome>,
    pub ratings: [Option<u32>; 2],
    pub date: Option<&'a str>,
    /// ECCO code (Xiangqi) or `first/second` formations (Janggi).
    pub label: Option<&'a str>,
}

impl<'a> Facts<'a> {
    /// The facts of a game with this result, header and opening label.
    pub(super) fn of(
        result: Option<Outcome>,
        tags: &'a crate::formats::Tags,
        label: Option<&'a str>,
    ) -> Facts<'a> {
        Facts {
            result,
            ratings: [tags.first_rating, tags.second_rating],
            date: tags.date.as_deref(),
            label,
        }
    }

    /// Sort key of the best-games list, higher = better: the mean known rating, then the
    /// later date (`YYYY[-MM[-DD]]`, missing parts as 0).
    pub(super) fn top_score(&self) -> u64 {
        top_score(self.ratings, self.date)
    }
}

/// See [`Facts::top_score`].
pub(super) fn top_score(ratings: [Option<u32>; 2], date: Option<&str>) -> u64 {
    let (sum, known) = ratings.into_iter().flatten().fold((0, 0), |(sum, n), r| {
        (sum + u64::from(r.min(99_999)), n + 1)
    });
    let rating = sum.checked_div(known).unwrap_or(0);
    rating * 100_000_000 + date_number(date)
}

/// `YYYY-MM-DD` → YYYYMMDD as a number (missing or unreadable parts count as 0).
fn date_number(date: Option<&str>) -> u64 {
    let Some(d) = date else { return 0 };
    let mut parts = d.split('-').map(|p| p.parse::<u64>().unwrap_or(0));
    let y = parts.next().unwrap_or(0).min(9999);
    let m = parts.next().unwrap_or(0).min(99);
    let day = parts.next().unwrap_or(0).min(99);
    y * 10_000 + m * 100 + day
}

/// Adds one game to a list of move rows kept sorted by move code.
fn add_to_rows(rows: &mut Vec<MoveRow>, mv: Option<Move>, g: &Facts<'_>) {
    let code = move_code(mv);
    let i = match rows.binary_search_by_key(&code, |r| move_code(r.mv)) {
        Ok(i) => i,
        Err(i) => {
            rows.insert(
                i,
                MoveRow {
                    mv,
                    ..MoveRow::default()
                },
            );
            i
        }
    };
    rows[i].add_game(g.result, g.ratings, g.date);
}

/// Adds one to a label's count in a list kept sorted by label.
fn add_label(labels: &mut Vec<OpeningRow>, label: &str, games: u64) {
    match labels.binary_search_by(|o| o.label.as_str().cmp(label)) {
        Ok(i) => labels[i].games += games,
        Err(i) => labels.insert(
            i,
            OpeningRow {
                label: label.to_string(),
                games,
            },
        ),
    }
}

/// One of a position's best games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Best {
    /// Its [`Facts::top_score`].
    pub score: u64,
    /// The game.
    pub link: Link,
}

/// The precomputed statistics of a busy position.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Summary {
    /// One row per move (and one for the games that ended here), by move code.
    pub moves: Vec<MoveRow>,
    /// Opening labels and their games, by label.
    pub labels: Vec<OpeningRow>,
    /// The best [`TOP_KEPT`] games, best first, then by id.
    pub top: Vec<Best>,
}

const SUMMARY_FORMAT: u64 = 2;

impl Summary {
    /// Counts one game that played `mv` here.
    pub(super) fn add(&mut self, id: i64, mv: u16, g: &Facts<'_>) -> Result<(), StoreError> {
        add_to_rows(&mut self.moves, move_from_code(mv)?, g);
        if let Some(label) = g.label {
            add_label(&mut self.labels, label, 1);
        }
        let entry = Best {
            score: g.top_score(),
            link: Link { game: id, mv },
        };
        let i = self
            .top
            .binary_search_by(|t| {
                entry
                    .score
                    .cmp(&t.score)
                    .then(t.link.game.cmp(&entry.link.game))
            })
            .unwrap_or_else(|i| i);
        if i < TOP_KEPT {
            self.top.insert(i, entry);
            self.top.truncate(TOP_KEPT);
        }
        Ok(())
    }

    /// The blob stored in `positions.summary`.
    pub(super) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 + self.moves.len() * 24 + self.top.len() * 8);
        varint::put(&mut out, SUMMARY_FORMAT);
        varint::put(&mut out, self.moves.len() as u64);
        for m in &self.moves {
            varint::put(&mut out, u64::from(move_code(m.mv)));
            let c = &m.counts;
            for n in [
                c.games,
                c.first_wins,
                c.draws,
                c.second_wins,
                c.rating_sum,
                c.rating_count,
            ] {
                varint::put(&mut out, n);
            }
            varint::put_str(&mut out, m.first_date.as_deref());
            varint::put_str(&mut out, m.last_date.as_deref());
        }
        varint::put(&mut out, self.labels.len() as u64);
        for l in &self.labels {
            varint::put_str(&mut out, Some(&l.label));
            varint::put(&mut out, l.games);
        }
        varint::put(&mut out, self.top.len() as u64);
        for b in &self.top {
            varint::put(&mut out, b.score);
            varint::put(&mut out, b.link.game.unsigned_abs());
            varint::put(&mut out, u64::from(b.link.mv));
        }
        out
    }

    /// The inverse of [`Summary::encode`].
    pub(super) fn decode(bytes: &[u8]) -> Result<Summary, StoreError> {
        let mut r = Reader::new(bytes, "summary");
        let format = r.u64()?;
        if format != SUMMARY_FORMAT {
            return Err(StoreError::Corrupt(format!(
                "summary blob: unknown format {format}"
            )));
        }
        let n: usize = r.int()?;
        let mut moves = Vec::with_capacity(n.min(1024));
        for _ in 0..n {
            let mv = move_from_code(r.int()?)?;
            let counts = GameCounts {
                games: r.u64()?,
                first_wins: r.u64()?,
                draws: r.u64()?,
                second_wins: r.u64()?,
                rating_sum: r.u64()?,
                rating_count: r.u64()?,
            };
            moves.push(MoveRow {
                mv,
                counts,
                first_date: r.str()?,
                last_date: r.str()?,
            });
        }
        let n: usize = r.int()?;
        let mut labels = Vec::with_capacity(n.min(1024));
        for _ in 0..n {
            let label = r.str()?.unwrap_or_default();
            labels.push(OpeningRow {
                label,
                games: r.u64()?,
            });
        }
        let n: usize = r.int()?;
        let mut top = Vec::with_capacity(n.min(TOP_KEPT));
        for _ in 0..n {
            top.push(Best {
                score: r.u64()?,
                link: Link {
                    game: r.int()?,
                    mv: r.int()?,
                },
            });
        }
        if !r.is_empty() {
            return Err(StoreError::Corrupt("summary blob: trailing bytes".into()));
        }
        Ok(Summary { moves, labels, top })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Color;

    #[test]
    fn links_round_trip_and_reject_garbage() {
        let links = [
            Link { game: 1, mv: 5000 },
            Link {
                game: 2,
                mv: END_OF_GAME,
            },
            Link {
                game: 900_000,
                mv: 0,
            },
        ];
        let blob = encode_links(&links);
        // (1 + 2) + (1 + 3) + (3 + 1) bytes.
        assert_eq!(blob.len(), 11);
        assert_eq!(decode_links(&blob).unwrap(), links);
        // A repeated id (delta 0 after the first link) and a move code over 16 bits.
        assert!(decode_links(&[1, 1, 0, 1]).is_err());
        assert!(decode_links(&[1, 0x80, 0x80, 0x04]).is_err());
    }

    #[test]
    fn summary_counts_keeps_the_best_games_and_round_trips() {
        let h2e2 = "h2e2".parse::<Move>().unwrap().to_u16();
        let red = Some(Outcome::Decisive {
            winner: Color::First,
        });
        let mut s = Summary::default();
        for id in 1..=(TOP_KEPT as i64 + 20) {
            let date = format!("{}", 1900 + id);
            let g = Facts {
                result: if id % 2 == 0 {
                    red
                } else {
                    Some(Outcome::Draw)
                },
                ratings: [Some(2000), None],
                date: Some(&date),
                label: (id % 3 == 0).then_some("C45"),
            };
            s.add(id, if id == 111 { END_OF_GAME } else { h2e2 }, &g)
                .unwrap();
        }
        let n = TOP_KEPT as u64 + 20;
        assert_eq!(s.moves.len(), 2);
        assert_eq!(s.moves[0].mv.unwrap().to_string(), "h2e2");
        assert_eq!(s.moves[0].counts.games + s.moves[1].counts.games, n);
        assert_eq!(s.moves[1].mv, None);
        assert_eq!(s.moves[0].counts.first_wins, n / 2);
        assert_eq!(s.moves[0].counts.rating_sum, 2000 * (n - 1));
        assert_eq!(s.moves[0].first_date.as_deref(), Some("1901"));
        assert_eq!(
            s.labels,
            vec![OpeningRow {
                label: "C45".into(),
                games: n / 3
            }]
        );
        // Same rating for all: the latest first.
        assert_eq!(s.top.len(), TOP_KEPT);
        assert_eq!(s.top[0].link.game, n as i64);
        assert_eq!(s.top[TOP_KEPT - 1].link.game, 21);
        assert_eq!(s.top[9].link.mv, END_OF_GAME);
        let back = Summary::decode(&s.encode()).unwrap();
        assert_eq!(back, s);
        let mut bad = s.encode();
        bad.push(0);
        assert!(Summary::decode(&bad).is_err());
        assert!(Summary::decode(&s.encode()[..10]).is_err());
    }

    #[test]
    fn top_score_orders_rating_then_date() {
        let a = top_score([Some(2600), Some(2500)], Some("2001"));
        let b = top_score([Some(2500), None], Some("2020-01-01"));
        let c = top_score([None, None], Some("2020-01-02"));
        let d = top_score([None, None], Some("2020-01"));
        assert!(a > b && b > c && c > d);
    }
}
