//! Games and filters shared by the tests of the buckets module (test builds only).

use crate::{
    formats::facts::{Mode, Speed, Termination},
    rules::{Color, Move, Outcome},
    store::{
        filter::{calendar_month, BucketFilter, Matcher},
        game_facts::GameFacts,
        model::{GameCounts, MonthCounts},
        END_OF_GAME,
    },
};

/// Many games (`n`) in few rests and months, so that every part is written.
pub(super) fn many_games(n: i64) -> Vec<(u16, i64, GameFacts)> {
    let moves = [
        "h2e2".parse::<Move>().unwrap().to_u16(),
        "c3c4".parse::<Move>().unwrap().to_u16(),
        END_OF_GAME,
    ];
    let dates = [
        None,
        Some("2001"),
        Some("2001-03"),
        Some("2001-03-09"),
        Some("2019-11-30"),
    ];
    let speeds = [None, Some(Speed::Blitz), Some(Speed::Classical)];
    let mut x: u64 = 12345;
    let mut next = |n: u64| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) % n
    };
    (0..n)
        .map(|i| {
            let result = match next(4) {
                0 => None,
                1 => Some(Outcome::Draw),
                2 => Some(Outcome::Decisive {
                    winner: Color::First,
                }),
                _ => Some(Outcome::Decisive {
                    winner: Color::Second,
                }),
            };
            let ratings = [
                (next(3) > 0).then(|| 1500 + 400 * next(3) as u32),
                (next(2) > 0).then_some(2100),
            ];
            let g = GameFacts::new(
                result,
                ratings,
                dates[next(5) as usize],
                speeds[next(3) as usize],
                (next(2) == 0).then_some(Mode::Casual),
                (next(3) == 0).then_some(Termination::Mate),
            );
            (moves[next(3) as usize], 5000 - i, g)
        })
        .collect()
}

/// Filters of every kind: none, dates, ratings, speed and mode, all.
pub(super) fn some_filters() -> [BucketFilter; 6] {
    let m = |s: &str| Some(s.parse().unwrap());
    [
        BucketFilter::default(),
        BucketFilter {
            since: m("2001-03"),
            ..BucketFilter::default()
        },
        BucketFilter {
            until: m("2001"),
            ..BucketFilter::default()
        },
        BucketFilter {
            min_rating: Some(1900),
            ..BucketFilter::default()
        },
        BucketFilter {
            speeds: vec![Speed::Blitz],
            modes: vec![Mode::Casual],
            ..BucketFilter::default()
        },
        BucketFilter {
            since: m("2001"),
            max_rating: Some(2000),
            speeds: vec![Speed::Classical],
            ..BucketFilter::default()
        },
    ]
}

/// The history and the games of `games` that pass `matcher`, counted from the games.
pub(super) fn counted(
    games: &[(u16, i64, GameFacts)],
    matcher: &Matcher,
) -> (u64, Vec<MonthCounts>) {
    let mut history: Vec<MonthCounts> = Vec::new();
    let mut n = 0;
    for (_, _, g) in games.iter().filter(|g| matcher.passes(g.2.bucket)) {
        n += 1;
        let Some((year, month)) = calendar_month(g.month()) else {
            continue;
        };
        let mut c = GameCounts::default();
        c.add_game(g.result, g.ratings);
        match history
            .iter_mut()
            .find(|h| (h.year, h.month) == (year, month))
        {
            Some(h) => h.add(&c),
            None => {
                let mut h = MonthCounts {
                    year,
                    month,
                    ..MonthCounts::default()
                };
                h.add(&c);
                history.push(h);
            }
        }
    }
    history.sort_by_key(|h| (h.year, h.month));
    (n, history)
}
