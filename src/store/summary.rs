//! The summary blob of a busy position (`positions.summary`): per-move sums, opening-label
//! counts and its best games, so that the start position (tens of thousands of games) is
//! answered from one small blob. No SQL here.
//!
//! A position keeps the list of games through it (see `links`). A position with at most
//! [`LIST_MAX`] games — four in five positions of a real collection are reached by a single
//! game — keeps nothing else: its statistics are counted from those few games when asked. A
//! busier one has a [`Summary`] too.
//!
//! Frozen layout (format 2; any change is a new format number):
//!
//! ```text
//! summary  = varint 2 (format)
//!            varint n, then n × move row, by move code
//!            varint n, then n × (string label, varint games), by label
//!            varint n, then n × (varint top score, varint game id, varint move code), best first
//! move row = varint move code, varint games, first_wins, draws, second_wins,
//!            rating_sum, rating_count, string first_date, string last_date
//! string   = varint byte length, UTF-8 bytes (empty = none)
//! ```

use super::{
    game_facts::GameFacts,
    links::{move_code, move_from_code, Link},
    model::{top_score, MoveRow, OpeningRow},
    varint::{self, Reader},
    StoreError,
};
use crate::{
    formats::facts::{Mode, Speed, Termination},
    rules::{Move, Outcome},
};

/// Positions with more games than this keep a summary.
pub const LIST_MAX: usize = 32;

/// How many best games a summary keeps (the web API's maximum `top_games`).
pub const TOP_KEPT: usize = 100;

/// What the statistics need to know of a game.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Facts<'a> {
    pub result: Option<Outcome>,
    pub ratings: [Option<u32>; 2],
    pub date: Option<&'a str>,
    /// ECCO code (Xiangqi) or `first/second` formations (Janggi).
    pub label: Option<&'a str>,
    /// Speed category (the record's, else its clock's).
    pub speed: Option<Speed>,
    /// Rated or casual.
    pub mode: Option<Mode>,
    /// How the game ended.
    pub termination: Option<Termination>,
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
            speed: tags.speed.or(tags.time_control.map(|t| t.speed())),
            mode: tags.mode,
            termination: tags.termination,
        }
    }

    /// What the buckets and the `game_facts` row keep of the game.
    pub(super) fn game_facts(&self) -> GameFacts {
        GameFacts::new(
            self.result,
            self.ratings,
            self.date,
            self.speed,
            self.mode,
            self.termination,
        )
    }

    /// Sort key of the best-games list, higher = better: the mean known rating, then the
    /// later date (`YYYY[-MM[-DD]]`, missing parts as 0).
    pub(super) fn top_score(&self) -> u64 {
        top_score(self.ratings, self.date)
    }
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
            varint::put_counts(&mut out, &m.counts);
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
            let counts = r.counts()?;
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
    use crate::{rules::Color, store::END_OF_GAME};

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
                ..Facts::default()
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
}
