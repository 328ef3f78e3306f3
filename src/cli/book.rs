//! `qipu book`: build an engine opening book from game records.

use std::{cell::Cell, io::Write, path::PathBuf, process::ExitCode, time::Instant};

use clap::{Args, ValueEnum};
use serde_json::json;

use super::{
    game_filter::{tag_facts, GameFilterArgs},
    position_args::VariantArg,
    CliError, Context,
};
use crate::{
    book::{
        self, BookError, BookGame, BookOptions, EngineEvals, ForSide, Format, MirrorMode, Weights,
    },
    explorer::{resolve_start, Filter},
    formats::{read_path, replay, replay_or_prefix, Game, MoveNode, Tags},
    rules::{AnyPosition, Color, Variant},
    store::Store,
};

/// Book formats on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum FormatArg {
    /// ElephantEye BOOK.DAT (Xiangqi).
    Eleeye,
    /// BHGUI .obk SQLite book (Xiangqi).
    Obk,
    /// qipu's own format (Xiangqi and Janggi).
    Qipu,
}

/// Weight schemes on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum WeightsArg {
    /// ElephantEye MAKEBOOK: every ply adds win 3 / draw 1 / loss -1 for the mover.
    Eleeye,
    /// Number of games.
    Games,
    /// Half points of the mover: 2 per win, 1 per draw.
    Score,
    /// Games won by the mover.
    Wins,
    /// The engine's score of the move for its mover (--db only, from `qipu analyse` or
    /// `qipu analyse --records`): round(1000 / (1 + 10^(-cp/400))) within 1–999, 1000 for a
    /// mate the mover gives, 1 for a mate against it; unscored moves are left out.
    Engine,
}

/// Whose moves on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ForArg {
    /// Only Red's (Cho's) moves, from games Red won or drew.
    Red,
    /// Only Black's (Han's) moves, from games Black won or drew.
    Black,
    /// Every move of both sides, from every game.
    Both,
}

/// Mirror handling on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum MirrorArg {
    /// Fold each position with its left-right mirror image.
    Merge,
    /// Store positions as reached.
    Keep,
}

/// `qipu book`: build from games, or one of the book tools.
#[derive(Args, Debug)]
pub struct BookCommand {
    /// A book tool instead of a build.
    #[command(subcommand)]
    pub tool: Option<super::book_tools::BookTool>,
    /// The build's arguments.
    #[command(flatten)]
    pub build: BookArgs,
}

/// Arguments of `qipu book`.
#[derive(Args, Debug)]
pub struct BookArgs {
    /// The database to read the games from (every stored game of the variant that the
    /// filters keep, from its own start).
    #[arg(long, conflicts_with = "paths")]
    db: Option<PathBuf>,
    /// Instead of a database: game files, folders or zip archives of any supported format
    /// (games that cannot be read or replayed are reported and left out).
    paths: Vec<PathBuf>,
    /// Output format (required when building).
    #[arg(long, value_enum)]
    format: Option<FormatArg>,
    /// Output file, replaced once complete (required when building).
    #[arg(long)]
    out: Option<PathBuf>,
    /// The game whose records are used (the other game's are skipped) [default: xiangqi;
    /// janggi with --setup].
    #[arg(long, value_enum)]
    variant: Option<VariantArg>,
    /// Janggi: only games started from these formations, Cho's first (`마상상마/상마마상`,
    /// `inner/outer`, … as `qipu explore --setup`).
    #[arg(long)]
    setup: Option<String>,
    /// Which games count (as in `qipu explore`).
    #[command(flatten)]
    filter: GameFilterArgs,
    /// Only the first N plies of each game; 0 = whole games [default: 0 (whole games, as
    /// ElephantEye's MAKEBOOK) for eleeye, 40 for obk and qipu].
    #[arg(long)]
    max_ply: Option<usize>,
    /// A move must have been played in at least N games [default: 1 for eleeye, whose ratio
    /// already drops single-game moves; 2 for obk and qipu].
    #[arg(long)]
    min_games: Option<u32>,
    /// A move must score at least P percent for the side to move ((W + D/2) / (W + D + L)).
    #[arg(long, default_value_t = 0)]
    min_score: u32,
    /// Leave out moves the engine scores below CP centipawns for the mover (or mated), by
    /// the scores `qipu analyse` stored in the database (--db only); unscored moves stay.
    #[arg(long, value_name = "CP", allow_negative_numbers = true)]
    min_eval: Option<i32>,
    /// Whose moves go into the book; `red`/`black` keep only that side's moves from games it
    /// won or drew.
    #[arg(long = "for", value_enum, default_value = "both")]
    for_side: ForArg,
    /// Weights [default: eleeye for --format eleeye, games otherwise].
    #[arg(long, value_enum)]
    weights: Option<WeightsArg>,
    /// Mirror images [default: merge for eleeye and qipu, keep for obk].
    #[arg(long, value_enum)]
    mirror: Option<MirrorArg>,
    /// Divide weights by N (integer division; zero weights are left out) [default: 4 with
    /// eleeye weights, else 1].
    #[arg(long)]
    ratio: Option<u32>,
    /// Learn from every line of the records' variation trees (opening books in XQF, CBR,
    /// PGN, DhtmlXQ), each line as one game with its record's result, instead of the main
    /// line only. With game files only.
    #[arg(long, conflicts_with = "db")]
    tree: bool,
    /// Reject a game with a move that cannot be read or is illegal whole (by default its
    /// moves before that one are kept, as `qipu import` keeps them). With game files only.
    #[arg(long, conflicts_with = "db")]
    strict: bool,
    /// Print the summary as one JSON document on stdout.
    #[arg(long)]
    json: bool,
}

impl BookArgs {
    fn format(&self) -> Format {
        match self.format.unwrap_or(FormatArg::Qipu) {
            FormatArg::Eleeye => Format::Eleeye,
            FormatArg::Obk => Format::Obk,
            FormatArg::Qipu => Format::Qipu,
        }
    }

    /// The builder options: the format's defaults overridden by the flags.
    fn options(&self) -> BookOptions {
        let mut o = BookOptions::for_format(self.format());
        o.max_ply = self.max_ply.unwrap_or(o.max_ply);
        o.min_games = self.min_games.unwrap_or(o.min_games);
        o.min_score = self.min_score;
        o.for_side = match self.for_side {
            ForArg::Red => ForSide::Only(Color::First),
            ForArg::Black => ForSide::Only(Color::Second),
            ForArg::Both => ForSide::Both,
        };
        if let Some(w) = self.weights {
            o.weights = match w {
                WeightsArg::Eleeye => Weights::Eleeye,
                WeightsArg::Games => Weights::Games,
                WeightsArg::Score => Weights::Score,
                WeightsArg::Wins => Weights::Wins,
                WeightsArg::Engine => Weights::Engine,
            };
        }
        o.ratio = self
            .ratio
            .unwrap_or(if o.weights == Weights::Eleeye { 4 } else { 1 })
            .max(1);
        if let Some(m) = self.mirror {
            o.mirror = match m {
                MirrorArg::Merge => MirrorMode::Merge,
                MirrorArg::Keep => MirrorMode::Keep,
            };
        }
        o
    }
}

/// Which games a book learns from: the explorer's filter of the header, and with `--setup`
/// the start position of the chosen formations.
struct Selection {
    filter: Filter,
    /// The key of the only start position kept.
    start: Option<u64>,
    /// Games the selection left out.
    left_out: Cell<usize>,
}

impl Selection {
    /// Whether a game of this header and start position is kept (counting those that are
    /// not).
    fn keeps(&self, tags: &Tags, start: &AnyPosition) -> bool {
        let keep =
            self.start.is_none_or(|k| k == start.key()) && self.filter.passes(&tag_facts(tags));
        if !keep {
            self.left_out.set(self.left_out.get() + 1);
        }
        keep
    }
}

/// The stored games of a variant that the selection keeps, each from its own start position.
fn games_from_store<'a>(
    store: &'a Store,
    variant: Variant,
    selection: &'a Selection,
) -> impl Iterator<Item = Result<BookGame, BookError>> + 'a {
    store.games(variant).filter_map(move |g| {
        let g = match g {
            Ok(g) => g,
            Err(e) => return Some(Err(BookError::Upstream(e.into()))),
        };
        let start = match AnyPosition::from_fen(g.variant, &g.start_fen) {
            Ok(p) => p,
            Err(e) => {
                let what = format!("stored game {}: bad start position", g.id);
                return Some(Err(BookError::Upstream(Context::new(what, e).into())));
            }
        };
        selection.keeps(&g.tags, &start).then(|| {
            Ok(BookGame {
                start,
                moves: g.moves,
                result: g.result,
            })
        })
    })
}

/// How the games of files were taken.
#[derive(Default)]
struct FromFiles {
    /// Games (or, with `--tree`, lines) that could not be read or replayed.
    rejected: Cell<usize>,
    /// Games (or lines) kept up to a bad move.
    truncated: Cell<usize>,
    /// Games of the other variant.
    skipped: Cell<usize>,
    /// With `--tree`: records whose tree was walked, and the lines taken from them.
    trees: Cell<usize>,
    lines: Cell<usize>,
}

/// Every line of a move tree, from the root to each leaf, in the order of the record (the
/// main line last): the alternatives hanging off a move start in the position before it.
/// There are at most as many lines as nodes plus one.
fn tree_lines(moves: &[MoveNode]) -> Vec<Vec<MoveNode>> {
    fn walk(seq: &[MoveNode], prefix: &mut Vec<MoveNode>, out: &mut Vec<Vec<MoveNode>>) {
        let mark = prefix.len();
        for node in seq {
            for alternative in &node.variations {
                walk(alternative, prefix, out);
            }
            // the node without its subtree (cloning it whole would copy the tree per line)
            prefix.push(MoveNode {
                text: node.text.clone(),
                comment: node.comment.clone(),
                variations: Vec::new(),
                eval: node.eval.clone(),
            });
        }
        out.push(prefix.clone());
        prefix.truncate(mark);
    }
    let mut out = Vec::new();
    walk(moves, &mut Vec::new(), &mut out);
    out
}

/// The games of files and folders that the selection keeps, replayed (with `tree`, every
/// line of each record); unless `strict`, a game (line) with a bad move keeps its moves
/// before it ([`replay_or_prefix`]). Unreadable and truncated games are reported on stderr
/// and counted in `tally`, as are games of the other variant.
fn games_from_paths<'a>(
    paths: &'a [PathBuf],
    variant: Variant,
    (tree, strict): (bool, bool),
    selection: &'a Selection,
    tally: &'a FromFiles,
) -> impl Iterator<Item = Result<BookGame, BookError>> + 'a {
    let reject = move |e: &dyn std::fmt::Display| {
        eprintln!("qipu: {e}");
        tally.rejected.set(tally.rejected.get() + 1);
    };
    let play = move |line: &Game| {
        if strict {
            return replay(line).map(|r| (r, None));
        }
        let (r, cut) = replay_or_prefix(line)?;
        if let Some(e) = &cut {
            eprintln!(
                "qipu: {e} (truncated: its first {} plies kept)",
                r.moves.len()
            );
            tally.truncated.set(tally.truncated.get() + 1);
        }
        Ok((r, cut))
    };
    paths
        .iter()
        .flat_map(|p| read_path(p))
        .flat_map(move |game| {
            let g = match game {
                Err(e) => {
                    reject(&e);
                    return Vec::new();
                }
                Ok(g) if g.variant != variant => {
                    tally.skipped.set(tally.skipped.get() + 1);
                    return Vec::new();
                }
                Ok(g) => g,
            };
            let mut g = g;
            let lines = if tree {
                tally.trees.set(tally.trees.get() + 1);
                tree_lines(&g.moves)
            } else {
                vec![std::mem::take(&mut g.moves)]
            };
            g.moves = Vec::new();
            let count = lines.len();
            let mut out = Vec::with_capacity(count);
            let mut kept = None;
            for (i, moves) in lines.into_iter().enumerate() {
                let line = Game { moves, ..g.clone() };
                match play(&line) {
                    // every line of a record starts where the record does: one decision
                    Ok((r, _))
                        if !*kept.get_or_insert_with(|| selection.keeps(&g.tags, &r.start)) => {}
                    Ok((r, _)) => out.push(Ok(BookGame {
                        start: r.start,
                        moves: r.moves,
                        result: g.tags.result,
                    })),
                    Err(e) if tree => reject(&format_args!("{e} (line {} of {count})", i + 1)),
                    Err(e) => reject(&e),
                }
            }
            if tree {
                tally.lines.set(tally.lines.get() + out.len());
            }
            out
        })
}

/// Why a build had no game to learn from: none of the variant in the database or the files,
/// or none that the filters kept.
fn no_games(args: &BookArgs, variant: Variant, selection: &Selection, tally: &FromFiles) -> String {
    let place = match &args.db {
        Some(db) => db.display().to_string(),
        None => "the files given".to_string(),
    };
    let mut why = format!("no {variant} games in {place}");
    let left_out = selection.left_out.get();
    if left_out > 0 {
        why += &format!(" that the filters keep ({left_out} left out)");
    }
    let (rejected, skipped) = (tally.rejected.get(), tally.skipped.get());
    if args.db.is_none() && rejected + skipped > 0 {
        why += &format!(" ({skipped} of the other game skipped, {rejected} rejected)");
    }
    why
}

/// Runs `qipu book`. Exit code 1 when some games could not be read or replayed (the book is
/// written from the rest) or were kept only up to a bad move, or when no game is left to
/// learn from (no file is written).
pub fn book(args: &BookArgs) -> Result<ExitCode, CliError> {
    let started = Instant::now();
    let (Some(_), Some(out)) = (args.format, &args.out) else {
        return Err("qipu book: --format and --out are required (or a subcommand: convert, merge, dump, stats)".into());
    };
    if args.db.is_none() && args.paths.is_empty() {
        return Err("qipu book: give --db DB or game files".into());
    }
    let format = args.format();
    let (variant, start) = match &args.setup {
        None => (
            Variant::from(args.variant.unwrap_or(VariantArg::Xiangqi)),
            None,
        ),
        Some(text) => {
            let (v, fen) = resolve_start(args.variant.map(Variant::from), None, Some(text))?;
            let fen = fen.unwrap_or_else(|| v.start_fen().to_string());
            let pos = AnyPosition::from_fen(v, &fen).map_err(|e| format!("--setup: {e}"))?;
            (v, Some(pos.key()))
        }
    };
    if format != Format::Qipu && variant != Variant::Xiangqi {
        return Err(format!("--format {format} holds Xiangqi only; use --format qipu").into());
    }
    let filter = args.filter.filter();
    filter.check()?;
    let mut selection = Selection {
        filter,
        start,
        left_out: Cell::new(0),
    };
    let mut opts = args.options();
    let tally = FromFiles::default();
    let engine_weights = opts.weights == Weights::Engine;
    if (args.min_eval.is_some() || engine_weights) && args.db.is_none() {
        let flag = if engine_weights {
            "--weights engine"
        } else {
            "--min-eval"
        };
        return Err(format!("{flag} needs --db: the engine scores are in the database").into());
    }
    let written = match &args.db {
        Some(db) => {
            let store = Store::open_read_only(db).map_err(|e| format!("{}: {e}", db.display()))?;
            // `--player` takes any spelling of the person.
            selection.filter = crate::explorer::with_person(&store, &selection.filter)?;
            if args.min_eval.is_some() || engine_weights {
                opts.evals = Some(EngineEvals {
                    min_cp: args.min_eval,
                    scores: std::sync::Arc::new(store.eval_scores()?),
                });
            }
            book::write(
                format,
                games_from_store(&store, variant, &selection),
                &opts,
                out,
            )
        }
        None => book::write(
            format,
            games_from_paths(
                &args.paths,
                variant,
                (args.tree, args.strict),
                &selection,
                &tally,
            ),
            &opts,
            out,
        ),
    };
    let written = match written {
        Ok(w) => w,
        Err(BookError::Empty(_)) => {
            eprintln!(
                "qipu: {}: no book written",
                no_games(args, variant, &selection, &tally)
            );
            return Ok(ExitCode::from(1));
        }
        Err(e) => return Err(format!("{}: {e}", out.display()).into()),
    };
    let bytes = std::fs::metadata(out).map(|m| m.len()).unwrap_or(0);
    let secs = started.elapsed().as_secs_f64();
    if args.json {
        let mut doc = json!({
            "format": format.name(),
            "out": out.display().to_string(),
            "variant": variant.name(),
            "games": written.games,
            "rejected": tally.rejected.get(),
            "truncated": tally.truncated.get(),
            "skipped": tally.skipped.get(),
            "positions": written.positions,
            "records": written.records,
            "dropped_by_eval": written.dropped_by_eval,
            "unscored": written.unscored,
            "filtered_out": selection.left_out.get(),
            "bytes": bytes,
            "seconds": secs,
        });
        if args.tree {
            doc["trees"] = tally.trees.get().into();
            doc["lines"] = tally.lines.get().into();
        }
        writeln!(std::io::stdout().lock(), "{doc}")?;
    } else {
        eprintln!(
            "{}: {} records, {} positions, {bytes} bytes from {} games ({} rejected, {} of the other game skipped) in {secs:.1} s",
            out.display(),
            written.records,
            written.positions,
            written.games,
            tally.rejected.get(),
            tally.skipped.get()
        );
        if tally.truncated.get() > 0 {
            eprintln!(
                "{} games kept up to a bad move (--strict rejects them)",
                tally.truncated.get()
            );
        }
        if args.tree {
            eprintln!(
                "{} lines from the variation trees of {} records, each line counted as a game",
                tally.lines.get(),
                tally.trees.get()
            );
        }
        if !selection.filter.is_empty() || selection.start.is_some() {
            eprintln!("{} games left out by the filters", selection.left_out.get());
        }
        if args.min_eval.is_some() {
            eprintln!("{} moves left out by --min-eval", written.dropped_by_eval);
        }
        if engine_weights {
            eprintln!(
                "{} moves left out by --weights engine: no engine score stored",
                written.unscored
            );
        }
    }
    Ok(if tally.rejected.get() + tally.truncated.get() > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
