//! `qipu load`: a database from the output of `spark/build.py` (see `crate::bulk`).

use std::{io::Write, path::PathBuf, process::ExitCode, time::Instant};

use clap::Args;

use super::{import::peak_rss_bytes, CliError};
use crate::{bulk, store::Store};

/// Arguments of `qipu load`.
#[derive(Args, Debug)]
pub struct LoadArgs {
    /// The job's output folder (`games/`, `positions/`).
    dir: PathBuf,
    /// The database: written fresh when it has no games (a new file is built beside it and
    /// moved in place when complete), else the games are added as `qipu import` adds them.
    #[arg(long, default_value = "qipu.db")]
    db: PathBuf,
    /// Print one JSON document instead of the human summary.
    #[arg(long)]
    json: bool,
}

/// Runs `qipu load`.
pub fn load(args: &LoadArgs) -> Result<ExitCode, CliError> {
    for sub in ["games", "positions"] {
        if !args.dir.join(sub).is_dir() {
            return Err(format!(
                "{}: no {sub}/ folder: give the output folder of spark/build.py",
                args.dir.display()
            )
            .into());
        }
    }
    let started = Instant::now();
    // A new database is built under another name and moved in place when complete, so that
    // a failed load leaves no half-written database behind.
    let building = (!args.db.exists()).then(|| {
        let mut name = args.db.clone().into_os_string();
        name.push(".loading");
        PathBuf::from(name)
    });
    let target = building.as_ref().unwrap_or(&args.db);
    if building.is_some() && target.exists() {
        std::fs::remove_file(target)?;
    }
    let mut store = Store::open(target)?;
    let report = bulk::load(&args.dir, &mut store)?;
    drop(store);
    if let Some(tmp) = &building {
        std::fs::rename(tmp, &args.db)?;
    }
    let secs = started.elapsed().as_secs_f64();
    let mut out = std::io::stdout().lock();
    if args.json {
        let doc = serde_json::json!({
            "db": args.db.display().to_string(),
            "fresh": report.fresh,
            "games": report.games,
            "imported": report.imported,
            "duplicates": report.duplicates,
            "positions": report.positions,
            "links": report.links,
            "seconds": secs,
            "peak_rss_bytes": peak_rss_bytes(),
        });
        serde_json::to_writer_pretty(&mut out, &doc)?;
        writeln!(out)?;
    } else {
        writeln!(
            out,
            "{} games in {secs:.2} s ({}): {} imported, {} duplicates{}",
            report.games,
            if report.fresh {
                "fresh database"
            } else {
                "added"
            },
            report.imported,
            report.duplicates,
            if report.fresh {
                format!(", {} positions, {} links", report.positions, report.links)
            } else {
                String::new()
            }
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
