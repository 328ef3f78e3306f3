//! `qipu export`: CSV of games and of position statistics (loadable by pandas or DuckDB).
//!
//! This module owns the CSV columns; it reads the store and replays stored games (rules) to
//! say where a position is, and writes nothing to the database.

use std::{
    collections::HashMap,
    io::Write,
    path::{Path, PathBuf},
    process::ExitCode,
};

use clap::Args;

use super::{CliError, Context};
use crate::{
    rules::{AnyPosition, Outcome, Variant},
    store::{PositionKey, Store, StoreError},
};

/// Arguments of `qipu export`.
#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("what").required(true).multiple(true).args(["games", "positions"])))]
pub struct ExportArgs {
    /// The database.
    #[arg(long, default_value = "qipu.db")]
    db: PathBuf,
    /// Write the games here (`-`: standard output): one row per game, moves as canonical
    /// coordinates.
    #[arg(long)]
    games: Option<PathBuf>,
    /// Write the position statistics here (`-`: standard output): one row per (position
    /// key, move); an empty `move` counts the games that ended in the position. Each row
    /// also says where the position is: its variant and FEN, and a game (`game`, its id in
    /// `--games`) that reaches it after `ply` plies.
    #[arg(long)]
    positions: Option<PathBuf>,
}

/// A CSV writer on a file, or on standard output for `-`.
fn csv_writer(path: &Path) -> Result<csv::Writer<Box<dyn Write>>, CliError> {
    let out: Box<dyn Write> = if path == Path::new("-") {
        Box::new(std::io::stdout().lock())
    } else {
        Box::new(
            std::fs::File::create(path).map_err(|e| Context::new(path.display().to_string(), e))?,
        )
    };
    Ok(csv::Writer::from_writer(out))
}

fn csv_err(e: csv::Error) -> StoreError {
    StoreError::Callback {
        doing: "writing CSV",
        source: Box::new(e),
    }
}

/// Runs `qipu export`.
pub fn export(args: &ExportArgs) -> Result<ExitCode, CliError> {
    if !args.db.exists() {
        return Err(format!("{}: no such database", args.db.display()).into());
    }
    let store = Store::open_read_only(&args.db)?;
    if args.games.as_deref() == Some(Path::new("-"))
        && args.positions.as_deref() == Some(Path::new("-"))
    {
        return Err(
            "--games - and --positions -: only one of them can go to standard output".into(),
        );
    }
    if let Some(path) = &args.games {
        let mut w = csv_writer(path)?;
        w.write_record([
            "id",
            "variant",
            "source_file",
            "source_index",
            "event",
            "site",
            "round",
            "date",
            "first",
            "second",
            "first_rating",
            "second_rating",
            "result",
            "ecco",
            "opening",
            "variation",
            "first_formation",
            "second_formation",
            "start_fen",
            "plies",
            "moves",
        ])?;
        let s = |o: &Option<String>| o.clone().unwrap_or_default();
        let n = |o: Option<u32>| o.map(|r| r.to_string()).unwrap_or_default();
        for v in Variant::ALL {
            for g in store.games(v) {
                let g = g?;
                let t = &g.tags;
                let moves: Vec<String> = g.moves.iter().map(|m| m.to_string()).collect();
                w.write_record([
                    g.id.to_string(),
                    v.name().to_string(),
                    g.source.file.clone(),
                    g.source.index.to_string(),
                    s(&t.event),
                    s(&t.site),
                    s(&t.round),
                    s(&t.date),
                    s(&t.first),
                    s(&t.second),
                    n(t.first_rating),
                    n(t.second_rating),
                    g.result.map_or("*", Outcome::pgn).to_string(),
                    s(&t.ecco),
                    s(&t.opening),
                    s(&t.variation),
                    s(&t.first_formation),
                    s(&t.second_formation),
                    g.start_fen.clone(),
                    g.moves.len().to_string(),
                    moves.join(" "),
                ])?;
            }
        }
        w.flush()?;
    }
    if let Some(path) = &args.positions {
        let mut w = csv_writer(path)?;
        w.write_record([
            "key",
            "move",
            "games",
            "first_wins",
            "draws",
            "second_wins",
            "avg_rating",
            "first_date",
            "last_date",
            "variant",
            "fen",
            "game",
            "ply",
        ])?;
        let mut finder = Finder::default();
        store.for_each_position_moves(|key, game, rows| {
            let at = match game {
                Some(id) => Some(finder.find(&store, id, key)?),
                None => None,
            };
            let (variant, fen, game, ply) = match &at {
                Some(a) => (
                    a.variant.name(),
                    a.fen.as_str(),
                    a.game.to_string(),
                    a.ply.to_string(),
                ),
                None => ("", "", String::new(), String::new()),
            };
            for r in rows {
                let avg = if r.counts.rating_count > 0 {
                    format!(
                        "{:.1}",
                        r.counts.rating_sum as f64 / r.counts.rating_count as f64
                    )
                } else {
                    String::new()
                };
                w.write_record([
                    key.to_string().as_str(),
                    &r.mv.map(|m| m.to_string()).unwrap_or_default(),
                    &r.counts.games.to_string(),
                    &r.counts.first_wins.to_string(),
                    &r.counts.draws.to_string(),
                    &r.counts.second_wins.to_string(),
                    &avg,
                    r.first_date.as_deref().unwrap_or_default(),
                    r.last_date.as_deref().unwrap_or_default(),
                    variant,
                    fen,
                    &game,
                    &ply,
                ])
                .map_err(csv_err)?;
            }
            Ok(())
        })?;
        w.flush()?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Where a position is: a game through it and the ply at which the game reaches it, with the
/// position's variant and FEN.
struct Reached {
    variant: Variant,
    fen: String,
    game: i64,
    ply: usize,
}

/// A replayed game: its variant, moves, the key after each ply (index 0: the start) and the
/// position at every [`Finder::STRIDE`]-th ply, so that the position at any ply is at most
/// `STRIDE - 1` moves from one kept.
struct Replayed {
    variant: Variant,
    moves: Vec<crate::rules::Move>,
    keys: Vec<u64>,
    every: Vec<AnyPosition>,
}

/// The recently replayed games (a game goes through many positions), at most
/// [`Finder::KEPT`] games at a time.
#[derive(Default)]
struct Finder {
    games: HashMap<i64, Replayed>,
}

impl Finder {
    const KEPT: usize = 4096;
    /// One position kept per this many plies.
    const STRIDE: usize = 8;

    /// Where game `id` reaches `key` (its first occurrence).
    fn find(&mut self, store: &Store, id: i64, key: PositionKey) -> Result<Reached, StoreError> {
        if !self.games.contains_key(&id) {
            let g = store
                .game(id)?
                .ok_or_else(|| StoreError::Corrupt(format!("position {key}: no game {id}")))?;
            let mut pos = AnyPosition::from_fen(g.variant, &g.start_fen)
                .map_err(|e| StoreError::Corrupt(format!("game {id}: bad start position: {e}")))?;
            let mut keys = Vec::with_capacity(g.moves.len() + 1);
            let mut every = Vec::with_capacity(g.moves.len() / Self::STRIDE + 1);
            for (ply, &m) in g.moves.iter().enumerate() {
                if ply % Self::STRIDE == 0 {
                    every.push(pos.clone());
                }
                keys.push(pos.key());
                pos.play_unchecked(m);
            }
            keys.push(pos.key());
            if g.moves.len() % Self::STRIDE == 0 {
                every.push(pos);
            }
            if self.games.len() >= Self::KEPT {
                self.games.clear();
            }
            self.games.insert(
                id,
                Replayed {
                    variant: g.variant,
                    moves: g.moves,
                    keys,
                    every,
                },
            );
        }
        let Some(game) = self.games.get(&id) else {
            return Err(StoreError::Corrupt(format!("game {id}: not kept")));
        };
        let ply = game.keys.iter().position(|&k| k == key.0).ok_or_else(|| {
            StoreError::Corrupt(format!("position {key}: game {id} does not go through it"))
        })?;
        let from = ply / Self::STRIDE;
        let Some(kept) = game.every.get(from) else {
            return Err(StoreError::Corrupt(format!(
                "game {id}: ply {ply} not kept"
            )));
        };
        let mut pos = kept.clone();
        for &m in &game.moves[from * Self::STRIDE..ply] {
            pos.play_unchecked(m);
        }
        Ok(Reached {
            variant: game.variant,
            fen: pos.fen(),
            game: id,
            ply,
        })
    }
}
