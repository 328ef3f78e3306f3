//! `qipu book convert`, `merge`, `dump` and `stats`: books read whole ([`Contents`]) and
//! written again, or shown (`extend` is `book_extend.rs`, on the helpers here).

use std::{io::Write, path::PathBuf, process::ExitCode};

use clap::{Args, Subcommand};
use serde_json::json;

use super::{book::FormatArg, CliError, Context};
use crate::{
    book::{self, merge, Book, BookError, Contents, Format, MergeWritten, MirrorMode, ProbeMove},
    notation::{render, Notation},
    rules::{AnyPosition, Variant},
};

/// The subcommands of `qipu book`.
#[derive(Subcommand, Debug)]
pub enum BookTool {
    /// Any book format into any other (Xiangqi; qipu's format for Janggi), lossless where the
    /// target holds the data; the summary says what it could not keep.
    Convert(ConvertArgs),
    /// Books of any formats into one: a position+move in several inputs is one entry (games
    /// and W/D/L add up; weights normalised per position, mixed by --weight, scaled back).
    Merge(MergeArgs),
    /// The whole book as CSV (fen, key, iccs: the move in ICCS, notation, weight, games, wins,
    /// draws, losses, engine), one row per record; or --pgn, as one game with variations.
    Dump(DumpArgs),
    /// Positions, records, depth reached and the main lines of a book.
    Stats(StatsArgs),
    /// Lines of the book that end before --plies continued with a UCI engine's best moves
    /// (one search to --depth each, cached in --db), marked as engine moves.
    Extend(super::book_extend::ExtendArgs),
}

/// Arguments of `qipu book convert`.
#[derive(Args, Debug)]
pub struct ConvertArgs {
    /// The book (BOOK.DAT, .obk or qipu, recognised from the content).
    input: PathBuf,
    /// Target format.
    #[arg(long, value_enum)]
    format: FormatArg,
    /// Output file (replaced once complete).
    #[arg(long)]
    out: PathBuf,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    json: bool,
}

/// Arguments of `qipu book merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The books.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Target format.
    #[arg(long, value_enum)]
    format: FormatArg,
    /// Output file (replaced once complete).
    #[arg(long)]
    out: PathBuf,
    /// Factor of an input's weights, `IN=W` with IN as given on the command line (default 1).
    #[arg(long = "weight", value_name = "IN=W")]
    weights: Vec<String>,
    /// Leave out entries whose merged weight is below N.
    #[arg(long, value_name = "N")]
    min_weight: Option<i64>,
    /// Mirror images in the result [default: merge for eleeye, keep for obk; for qipu merge
    /// unless every input keeps positions as reached].
    #[arg(long, value_enum)]
    mirror: Option<super::book::MirrorArg>,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    json: bool,
}

/// Arguments of `qipu book dump`.
#[derive(Args, Debug)]
pub struct DumpArgs {
    /// The book.
    input: PathBuf,
    /// Only positions up to D plies from the start.
    #[arg(long, value_name = "D")]
    depth: Option<u32>,
    /// Only records of weight N or more.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    min_weight: Option<i64>,
    /// The book as one PGN game instead: its tree as variations (heaviest move first),
    /// weight and W/D/L in comments, each line stopping where it meets a position already
    /// written (readable by `qipu import` and `qipu book --tree`).
    #[arg(long)]
    pgn: bool,
}

/// Arguments of `qipu book stats`.
#[derive(Args, Debug)]
pub struct StatsArgs {
    /// The book.
    input: PathBuf,
    /// How many main lines (from the heaviest first moves).
    #[arg(long, default_value_t = 5)]
    lines: usize,
    /// Print one JSON document.
    #[arg(long)]
    json: bool,
}

/// Runs a subcommand of `qipu book`.
pub fn run(tool: &BookTool) -> Result<ExitCode, CliError> {
    match tool {
        BookTool::Convert(a) => convert(a),
        BookTool::Merge(a) => merge_books(a),
        BookTool::Dump(a) => dump(a),
        BookTool::Stats(a) => stats(a),
        BookTool::Extend(a) => super::book_extend::extend(a),
    }
}

pub(super) fn format_of(f: FormatArg) -> Format {
    match f {
        FormatArg::Eleeye => Format::Eleeye,
        FormatArg::Obk => Format::Obk,
        FormatArg::Qipu => Format::Qipu,
    }
}

/// Opens and reads a book whole, the path in any error.
pub(super) fn read(path: &std::path::Path) -> Result<Contents, CliError> {
    let ctx = |e| Context::new(path.display().to_string(), e);
    let b = Book::open(path).map_err(|e| super::probe::book_error(path, e))?;
    Contents::read(&b, &[]).map_err(|e| ctx(e).into())
}

/// Whether the target format holds the book's game; else an error naming the book.
pub(super) fn holds(format: Format, path: &std::path::Path, c: &Contents) -> Result<(), CliError> {
    if format != Format::Qipu && c.variant != Variant::Xiangqi {
        return Err(Context::new(
            path.display().to_string(),
            book::BookError::Unsupported(format!(
                "a book of {} positions into {format}: only qipu books hold them",
                c.variant
            )),
        )
        .into());
    }
    Ok(())
}

/// What a convert or merge wrote; `None` (said on stderr) when nothing was left to write,
/// and no file was written.
fn merged(
    written: Result<MergeWritten, BookError>,
    out: &std::path::Path,
) -> Result<Option<MergeWritten>, CliError> {
    match written {
        Ok(w) => Ok(Some(w)),
        Err(e @ BookError::Empty(_)) => {
            eprintln!("qipu: {}: {e}", out.display());
            Ok(None)
        }
        Err(e) => Err(Context::new(out.display().to_string(), e).into()),
    }
}

/// Writes one book read whole as a book of `format` at `out` (replaced once complete), as
/// `convert` does: a qipu target keeps the book's mirror handling. `None` (said on stderr)
/// when nothing was left to write.
pub(super) fn write_as(
    c: &Contents,
    format: Format,
    out: &std::path::Path,
) -> Result<Option<MergeWritten>, CliError> {
    let inputs = [merge::Input {
        contents: c,
        factor: 1.0,
    }];
    let mut opts = merge::MergeOptions::new(format, &inputs);
    if format == Format::Qipu {
        opts.mirror = if c.mirror_merged {
            MirrorMode::Merge
        } else {
            MirrorMode::Keep
        };
    }
    merged(book::write_merged(&inputs, &opts, out), out)
}

fn convert(a: &ConvertArgs) -> Result<ExitCode, CliError> {
    let c = read(&a.input)?;
    let format = format_of(a.format);
    holds(format, &a.input, &c)?;
    let Some(w) = write_as(&c, format, &a.out)? else {
        return Ok(ExitCode::from(1));
    };
    report(&a.out, format, &[&a.input], &[&c], &w, a.json)
}

fn merge_books(a: &MergeArgs) -> Result<ExitCode, CliError> {
    // the books are read side by side (each walk is one thread's)
    let contents: Vec<Contents> = {
        use rayon::prelude::*;
        a.inputs
            .par_iter()
            .map(|p| read(p))
            .collect::<Result<_, _>>()?
    };
    let format = format_of(a.format);
    for (p, c) in a.inputs.iter().zip(&contents) {
        holds(format, p, c)?;
    }
    let mut factors = vec![1.0; a.inputs.len()];
    for spec in &a.weights {
        let (name, w) = spec
            .rsplit_once('=')
            .ok_or_else(|| format!("--weight {spec}: expected IN=W"))?;
        let w: f64 = w
            .parse()
            .ok()
            .filter(|w: &f64| w.is_finite() && *w > 0.0)
            .ok_or_else(|| format!("--weight {spec}: W must be a number above 0"))?;
        let i = a
            .inputs
            .iter()
            .position(|p| p.as_os_str() == name)
            .ok_or_else(|| format!("--weight {spec}: {name} is not one of the inputs"))?;
        factors[i] = w;
    }
    let inputs: Vec<merge::Input<'_>> = contents
        .iter()
        .zip(&factors)
        .map(|(c, &factor)| merge::Input {
            contents: c,
            factor,
        })
        .collect();
    let mut opts = merge::MergeOptions::new(format, &inputs);
    opts.min_weight = a.min_weight;
    if let Some(m) = a.mirror {
        if format == Format::Eleeye && matches!(m, super::book::MirrorArg::Keep) {
            return Err("--format eleeye: BOOK.DAT always folds mirror images".into());
        }
        opts.mirror = match m {
            super::book::MirrorArg::Merge => MirrorMode::Merge,
            super::book::MirrorArg::Keep => MirrorMode::Keep,
        };
    }
    let Some(w) = merged(book::write_merged(&inputs, &opts, &a.out), &a.out)? else {
        return Ok(ExitCode::from(1));
    };
    let paths: Vec<&PathBuf> = a.inputs.iter().collect();
    let cs: Vec<&Contents> = contents.iter().collect();
    report(&a.out, format, &paths, &cs, &w, a.json)
}

/// The summary of a convert or merge.
fn report(
    out: &std::path::Path,
    format: Format,
    paths: &[&PathBuf],
    contents: &[&Contents],
    w: &MergeWritten,
    as_json: bool,
) -> Result<ExitCode, CliError> {
    let l = &w.lost;
    if as_json {
        let inputs: Vec<_> = paths
            .iter()
            .zip(contents)
            .zip(&w.inputs)
            .map(|((p, c), s)| {
                json!({"book": p.display().to_string(), "format": c.format.name(),
                    "read": s.read, "kept": s.kept, "merged": s.merged, "dropped": s.dropped,
                    "unreached": c.loose.len()})
            })
            .collect();
        let doc = json!({"out": out.display().to_string(), "format": format.name(),
            "records": w.records, "positions": w.positions, "inputs": inputs,
            "not_kept": {"wdl": l.counts, "games": l.games, "engine_marks": l.engine_marks,
                "weights_clamped": l.clamped, "no_position": l.no_position}});
        writeln!(std::io::stdout().lock(), "{doc}")?;
        return Ok(ExitCode::SUCCESS);
    }
    eprintln!(
        "{}: {format}, {} records, {} positions",
        out.display(),
        w.records,
        w.positions
    );
    for ((p, c), s) in paths.iter().zip(contents).zip(&w.inputs) {
        eprintln!(
            "  {} ({}): {} read, {} kept, {} merged, {} dropped; {} not reached from the start (kept by key)",
            p.display(),
            c.format,
            s.read,
            s.kept,
            s.merged,
            s.dropped,
            c.loose.len()
        );
    }
    let mut notes = Vec::new();
    if l.counts > 0 {
        notes.push(format!(
            "W/D/L of {} entries (BOOK.DAT holds none)",
            l.counts
        ));
    }
    if l.games > 0 {
        notes.push(format!(
            "game counts of {} entries (.obk holds W/D/L only)",
            l.games
        ));
    }
    if l.engine_marks > 0 {
        notes.push(format!("{} engine marks", l.engine_marks));
    }
    if l.clamped > 0 {
        notes.push(format!(
            "{} weights out of the format's range, clamped",
            l.clamped
        ));
    }
    if l.no_position > 0 {
        notes.push(format!(
            "{} records of no known position under another format's key",
            l.no_position
        ));
    }
    if !notes.is_empty() {
        eprintln!("not kept: {}", notes.join("; "));
    }
    Ok(ExitCode::SUCCESS)
}

/// A move in the usual notation of its game.
fn notation(pos: &AnyPosition, m: &ProbeMove) -> String {
    match pos.variant() {
        Variant::Xiangqi => render(pos, m.mv, Notation::Chinese { traditional: false }),
        Variant::Janggi => render(pos, m.mv, Notation::Korean { hanja: false }),
    }
}

/// `dump --pgn`: the book's tree as one game per start position.
fn dump_pgn(a: &DumpArgs, c: &Contents) -> Result<ExitCode, CliError> {
    let opts = book::pgn::PgnOptions {
        depth: a.depth,
        min_weight: a.min_weight,
    };
    let name = a.input.display().to_string();
    let mut out = std::io::stdout().lock();
    for g in book::pgn::games(c, &opts, &name) {
        let text = crate::formats::write::write_pgn(&g, &|_, m| m.to_string(), Some("ICCS"))
            .map_err(|e| Context::new(name.clone(), e))?;
        out.write_all(text.as_bytes())?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn dump(a: &DumpArgs) -> Result<ExitCode, CliError> {
    let c = read(&a.input)?;
    if a.pgn {
        return dump_pgn(a, &c);
    }
    let mut w = csv::Writer::from_writer(std::io::stdout().lock());
    w.write_record([
        "fen", "key", "iccs", "notation", "weight", "games", "wins", "draws", "losses", "engine",
    ])?;
    let row =
        |w: &mut csv::Writer<_>, fen: &str, key: String, mv: String, n: String, m: &ProbeMove| {
            let c = m.counts;
            let opt = |v: Option<u32>| v.map(|v| v.to_string()).unwrap_or_default();
            w.write_record([
                fen.to_string(),
                key,
                mv,
                n,
                m.weight.to_string(),
                opt(c.and_then(|c| c.games)),
                opt(c.map(|c| c.wins)),
                opt(c.map(|c| c.draws)),
                opt(c.map(|c| c.losses)),
                u8::from(m.engine).to_string(),
            ])
        };
    let keep = |m: &ProbeMove| a.min_weight.is_none_or(|min| m.weight >= min);
    for node in &c.nodes {
        if a.depth.is_some_and(|d| node.depth > d) {
            continue;
        }
        let fen = node.pos.fen();
        let key = format!("{:016x}", book::format_key(c.format, &node.pos));
        for m in node.moves.iter().filter(|m| keep(m)) {
            row(
                &mut w,
                &fen,
                key.clone(),
                m.mv.to_string(),
                notation(&node.pos, m),
                m,
            )?;
        }
    }
    if a.depth.is_none() {
        for r in c.loose.iter().filter(|r| keep(&r.entry)) {
            let key = format!("{}:{:016x}", r.keyed, r.key);
            row(
                &mut w,
                "",
                key,
                r.entry.mv.to_string(),
                String::new(),
                &r.entry,
            )?;
        }
    }
    w.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The heaviest line from a position: each next position's heaviest move (as stored, or as
/// its mirror image's), until none or a repetition; at most 60 plies.
fn main_line(
    c: &Contents,
    index: &book::Index,
    start: &AnyPosition,
) -> Vec<(AnyPosition, ProbeMove)> {
    let mut out = Vec::new();
    let mut pos = start.clone();
    let mut seen = std::collections::HashSet::new();
    while out.len() < 60 && seen.insert(pos.key()) {
        let moves = index.moves(c, &pos);
        let Some(best) = moves.into_iter().max_by_key(|m| m.weight) else {
            break;
        };
        out.push((pos.clone(), best));
        pos.play_unchecked(best.mv);
    }
    out
}

fn stats(a: &StatsArgs) -> Result<ExitCode, CliError> {
    let c = read(&a.input)?;
    let index = book::Index::new(&c);
    let mut lines = Vec::new();
    for start in book::start_positions(c.variant) {
        let mut firsts = index.moves(&c, &start);
        firsts.sort_by_key(|m| std::cmp::Reverse(m.weight));
        for first in firsts.into_iter().take(a.lines) {
            let mut pos = start.clone();
            let mut line = vec![(pos.clone(), first)];
            pos.play_unchecked(first.mv);
            line.extend(main_line(&c, &index, &pos));
            lines.push(line);
        }
        if lines.len() >= a.lines {
            break;
        }
    }
    lines.truncate(a.lines);
    let text = |line: &[(AnyPosition, ProbeMove)], coords: bool| -> String {
        line.iter()
            .map(|(p, m)| {
                if coords {
                    m.mv.to_string()
                } else {
                    notation(p, m)
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let records = c.records;
    if a.json {
        let ls: Vec<_> = lines
            .iter()
            .map(|l| {
                json!({"moves": text(l, true), "notation": text(l, false),
                "weight": l.first().map(|(_, m)| m.weight)})
            })
            .collect();
        let doc = json!({"book": a.input.display().to_string(), "format": c.format.name(),
            "variant": c.variant.name(), "mirror_merged": c.mirror_merged,
            "records": records, "positions": c.nodes.len(), "entries": c.entries(),
            "unreached": c.loose.len(), "unreadable": c.unreadable, "depth": c.depth(),
            "main_lines": ls});
        writeln!(std::io::stdout().lock(), "{doc}")?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{}: {} book, {}, mirrors {}",
        a.input.display(),
        c.format,
        c.variant,
        if c.mirror_merged {
            "merged"
        } else {
            "kept apart (positions as reached)"
        }
    )?;
    writeln!(out, "records     {records}")?;
    writeln!(
        out,
        "positions   {} reached from the start, holding {} records",
        c.nodes.len(),
        c.entries()
    )?;
    writeln!(
        out,
        "unreached   {} records no book line leads to",
        c.loose.len()
    )?;
    if c.unreadable > 0 {
        writeln!(out, "unreadable  {}", c.unreadable)?;
    }
    writeln!(out, "depth       {} plies", c.depth())?;
    writeln!(
        out,
        "main lines (heaviest first move, then the heaviest move each ply):"
    )?;
    for l in &lines {
        writeln!(
            out,
            "  [{}] {} ({} plies)",
            l[0].1.weight,
            text(l, false),
            l.len()
        )?;
        writeln!(out, "        {}", text(l, true))?;
    }
    Ok(ExitCode::SUCCESS)
}
