//! `qipu perft` and `qipu moves`.

use std::{io::Write, process::ExitCode, time::Instant};

use clap::Args;

use super::{position_args::PositionArgs, CliError};
use crate::rules::{divide, perft as count, AnyPosition, Position};

/// Arguments of `qipu perft`.
#[derive(Args, Debug)]
pub struct PerftArgs {
    #[command(flatten)]
    position: PositionArgs,
    /// Depth in plies.
    #[arg(long)]
    depth: u32,
    /// Print each root move with the leaf count below it first (the counts add up to the
    /// total).
    #[arg(long)]
    divide: bool,
    /// Play every leaf move instead of counting the last ply from the move list.
    #[arg(long)]
    no_bulk: bool,
    /// Print nodes per second on stderr.
    #[arg(long)]
    time: bool,
}

/// Arguments of `qipu moves`.
#[derive(Args, Debug)]
pub struct MovesArgs {
    #[command(flatten)]
    position: PositionArgs,
}

fn tree<P: Position>(pos: &P, args: &PerftArgs, out: &mut impl Write) -> std::io::Result<u64> {
    let bulk = !args.no_bulk;
    if args.divide && args.depth > 0 {
        let mut total = 0;
        for (m, n) in divide(pos, args.depth, bulk) {
            writeln!(out, "{m}: {n}")?;
            total += n;
        }
        writeln!(out)?;
        Ok(total)
    } else {
        Ok(count(pos, args.depth, bulk))
    }
}

/// Runs `qipu perft`.
pub fn perft(args: &PerftArgs) -> Result<ExitCode, CliError> {
    let pos = args.position.position()?;
    let mut out = std::io::stdout().lock();
    let start = Instant::now();
    let nodes = match &pos {
        AnyPosition::Xiangqi(p) => tree(p, args, &mut out)?,
        AnyPosition::Janggi(p) => tree(p, args, &mut out)?,
    };
    if args.time {
        let secs = start.elapsed().as_secs_f64();
        eprintln!(
            "{nodes} nodes in {secs:.3} s: {:.1} M nodes/s",
            nodes as f64 / secs / 1e6
        );
    }
    writeln!(out, "{nodes}")?;
    Ok(ExitCode::SUCCESS)
}

/// Runs `qipu moves`.
pub fn moves(args: &MovesArgs) -> Result<ExitCode, CliError> {
    let pos = args.position.position()?;
    let mut moves = pos.legal_moves();
    moves.sort();
    let text: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    writeln!(std::io::stdout().lock(), "{}", text.join(" "))?;
    Ok(ExitCode::SUCCESS)
}
