//! A synthetic qipu book for `scripts/bench-book-tools.sh`: every legal move of every
//! position reached breadth first from the Xiangqi start, until ENTRIES records (default
//! 1,000,000), mirror images folded as qipu's builder folds them (the smaller key's
//! orientation), with made-up weights and W/D/L. Every record is reached from the start, so
//! `qipu book convert` and `merge` walk the whole tree, as on a real book.
//!
//! `cargo run --release --example book_synth -- OUT [ENTRIES]`

use std::collections::{HashSet, VecDeque};

use qipu::book::{
    mirror_position, qipu::write, BookOptions, BookRecord, BuiltBook, Format, MoveStats,
    RecordFlags,
};
use qipu::rules::{AnyPosition, Variant};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let out = args.next().ok_or("usage: book_synth OUT [ENTRIES]")?;
    let wanted: usize = match args.next() {
        Some(n) => n.parse()?,
        None => 1_000_000,
    };
    let mut records = Vec::with_capacity(wanted);
    let mut seen = HashSet::new();
    let mut queue = VecDeque::from([AnyPosition::new(Variant::Xiangqi)]);
    let mut n: u32 = 0;
    while let Some(pos) = queue.pop_front() {
        if records.len() >= wanted {
            break;
        }
        // the stored orientation: the smaller key of the position and its mirror image
        let stored = match mirror_position(&pos) {
            Some(m) if m.key() < pos.key() => m,
            _ => pos,
        };
        if !seen.insert(stored.key()) {
            continue;
        }
        for &mv in stored.legal_moves().iter() {
            n = n.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let (wins, draws, losses) = (n >> 8 & 15, n >> 12 & 7, n >> 15 & 15);
            records.push(BookRecord {
                key: stored.key(),
                mv,
                weight: 1 + (n >> 4 & 255),
                stats: MoveStats {
                    plays: 0,
                    eleeye: 0,
                    games: wins + draws + losses,
                    wins,
                    draws,
                    losses,
                    eval: None,
                },
                flags: RecordFlags::default(),
            });
            let mut child = stored.clone();
            child.play_unchecked(mv);
            queue.push_back(child);
        }
    }
    records.truncate(wanted);
    records.sort_by_key(|r| (r.key, r.mv));
    let book: BuiltBook<u64> = BuiltBook {
        variant: Variant::Xiangqi,
        options: BookOptions::for_format(Format::Qipu),
        games: 0,
        candidates: records.len(),
        records,
        dropped_by_eval: 0,
        unscored: 0,
    };
    let mut bytes = Vec::new();
    let written = write(&book, &mut bytes)?;
    std::fs::write(&out, &bytes)?;
    eprintln!("{out}: {written} records, {} bytes", bytes.len());
    Ok(())
}
