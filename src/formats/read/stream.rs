//! Reading a large PGN file as a stream: blocks of [`BLOCK_BYTES`] are read as the import
//! takes chunks, so what is held is a block and the run of games not yet handed out, never
//! the file (a 5 GB collection imports in the memory of a 5 MB one, and has no size limit).
//! It owns only the cutting of one file's bytes into runs of games; what a chunk reads is
//! `read.rs`'s, where a game starts is `pgn::chunk_starts`' (the cuts are those of the whole
//! text: see [`PgnStream`]).
//!
//! A file is streamed when it is a UTF-8 PGN text of at least [`STREAM_FROM`] bytes (its
//! first block says so); any other file is read whole, as before.

use std::{fs::File, io::Read, sync::Arc};

use super::{
    failed, file::unreadable, file_error, is_binary, is_pgn_text, is_zip, Chunk, Content,
    PGN_CHUNK_BYTES,
};
use crate::formats::{
    decode::{decode_text_owned, Decoded},
    pgn,
};

/// Files at least this long are streamed (when they are UTF-8 PGN).
pub(super) const STREAM_FROM: u64 = 16 << 20;

/// Bytes read from the file at a time.
pub(super) const BLOCK_BYTES: usize = 4 << 20;

/// The chunks of one PGN file, read block by block as they are taken.
///
/// The text is cut where `pgn::chunk_starts` cuts the whole text: each block's complete
/// lines are added to the run of text not yet handed out, which begins at a cut; the starts
/// found in it are final but the last (the run after it may go on in the next block), which
/// becomes the new beginning. Whether a line starts a run depends only on the text before
/// it and the line itself, so the cuts are the whole text's.
pub(super) struct PgnStream {
    file: String,
    quiet: bool,
    input: File,
    /// Bytes after the last newline read (a line, perhaps a character, not complete yet).
    tail: Vec<u8>,
    /// Decoded text from the last cut on, not handed out yet.
    pending: String,
    /// Where `pending` begins in the file's decoded text.
    offset: usize,
    /// Runs ready to hand out.
    ready: std::collections::VecDeque<Chunk>,
    part: usize,
    /// The file's bytes not read yet (the loop's bound: a file that grows is read to the
    /// length it had when opened).
    left: u64,
    done: bool,
}

impl PgnStream {
    /// A stream of `input` (of `len` bytes) if its `first` block, already read, is a UTF-8
    /// PGN text; else the file and the block back (the caller reads the file whole).
    pub(super) fn open(
        file: &str,
        quiet: bool,
        input: File,
        len: u64,
        first: Vec<u8>,
    ) -> Result<PgnStream, (File, Vec<u8>)> {
        let lines = &first[..last_line_end(&first)];
        let pgn = !is_binary(&first)
            && !is_zip(&first)
            && std::str::from_utf8(lines)
                .is_ok_and(|text| is_pgn_text(text.trim_start_matches('\u{feff}')));
        if !pgn {
            return Err((input, first));
        }
        let mut stream = PgnStream {
            file: file.to_string(),
            quiet,
            input,
            tail: Vec::new(),
            pending: String::new(),
            offset: 0,
            ready: Default::default(),
            part: 0,
            left: len.saturating_sub(first.len() as u64),
            done: false,
        };
        stream.add(first);
        Ok(stream)
    }

    /// Adds a block's bytes: its complete lines are decoded and cut, the rest waits.
    fn add(&mut self, block: Vec<u8>) {
        let mut lines = std::mem::take(&mut self.tail);
        lines.extend_from_slice(&block);
        self.tail = lines.split_off(last_line_end(&lines));
        self.add_text(lines, false);
    }

    /// Hands out every run left, the last line too: the file is at its end.
    fn finish(&mut self) {
        let tail = std::mem::take(&mut self.tail);
        self.add_text(tail, true);
        self.done = true;
    }

    /// Decodes complete lines onto the pending text and hands out the finished runs (all of
    /// them at the end of the file).
    fn add_text(&mut self, lines: Vec<u8>, last: bool) {
        // Each block is decoded on its own (cut at a newline, which no encoding streamed
        // here splits); only the file's first bytes may carry a byte-order mark.
        let decoded = decode_text_owned(lines);
        self.pending.push_str(&decoded.text);
        let starts = pgn::chunk_starts(&self.pending, PGN_CHUNK_BYTES);
        let keep_from = if last {
            self.pending.len()
        } else {
            starts.last().copied().unwrap_or(0)
        };
        if keep_from == 0 {
            return;
        }
        let rest = self.pending.split_off(keep_from);
        let text = Arc::new(Decoded {
            text: std::mem::replace(&mut self.pending, rest),
            encoding: decoded.encoding,
            malformed: decoded.malformed,
        });
        let ends = starts.iter().skip(1).copied().chain([keep_from]);
        // Short of the end, the last start begins the text kept (an empty run here).
        for (start, end) in starts.iter().copied().zip(ends) {
            if start == end {
                continue;
            }
            self.ready.push_back(Chunk {
                file: self.file.clone(),
                part: self.part,
                content: Content::Text {
                    text: Arc::clone(&text),
                    part: Some(start..end),
                    quiet: self.quiet,
                    offset: self.offset,
                },
            });
            self.part += 1;
        }
        self.offset += keep_from;
    }

    /// Reads the next block, and ends the file after its last.
    fn read_block(&mut self) -> std::io::Result<()> {
        let want = BLOCK_BYTES.min(usize::try_from(self.left).unwrap_or(BLOCK_BYTES));
        let mut block = Vec::with_capacity(want);
        (&mut self.input)
            .take(want as u64)
            .read_to_end(&mut block)?;
        self.left -= block.len() as u64;
        let end = block.is_empty() || self.left == 0;
        self.add(block);
        if end {
            self.finish();
        }
        Ok(())
    }
}

impl Iterator for PgnStream {
    type Item = Chunk;

    fn next(&mut self) -> Option<Chunk> {
        // Each turn reads a block of the file's bytes left, or ends: bounded by its length.
        while self.ready.is_empty() && !self.done {
            if let Err(io) = self.read_block() {
                // The games read before the error are handed out, then the error.
                self.finish();
                let mut e = file_error(&self.file, unreadable(&io));
                e.offset = u32::try_from(self.offset).ok();
                self.ready.push_back(failed(e));
            }
        }
        self.ready.pop_front()
    }
}

/// Where the bytes' complete lines end: just after the last newline (0 without one).
fn last_line_end(bytes: &[u8]) -> usize {
    memchr::memrchr(b'\n', bytes).map_or(0, |n| n + 1)
}

#[cfg(test)]
mod tests {
    use super::super::{chunks, chunks_of_bytes, read_chunks};
    use super::*;
    use std::io::Write;

    /// A PGN text of about `bytes` bytes: games with tags, Chinese moves, CRLF lines, a
    /// comment over several lines with a `[` line inside (not a cut), and a semicolon
    /// comment.
    fn big_pgn(bytes: usize) -> String {
        let mut text = String::new();
        let mut i = 0;
        while text.len() < bytes {
            text.push_str(&format!(
                "[Event \"第{i}局\"]\r\n[Red \"胡榮華\"]\r\n[Black \"楊官璘\"]\r\n\r\n\
                 1. 炮二平五 {{一個\r\n[不是標籤]\r\n評注}} 馬８進７ 2. 馬二進三 ; 註\r\n車９平８ 1-0\r\n\r\n"
            ));
            i += 1;
        }
        text
    }

    fn texts(chunks: impl Iterator<Item = Chunk>) -> Vec<(usize, usize, String)> {
        chunks
            .map(|c| {
                let text = match &c.content {
                    Content::Text {
                        text,
                        part: Some(r),
                        ..
                    } => text.text[r.clone()].to_string(),
                    other => panic!("not a run of games: {other:?}"),
                };
                (c.part, c.text_start(), text)
            })
            .collect()
    }

    #[test]
    fn a_streamed_file_is_cut_as_its_whole_text_is() {
        let text = big_pgn(STREAM_FROM as usize + 3 * BLOCK_BYTES + 12_345);
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(text.as_bytes()).unwrap();
        let path = f.path().to_path_buf();
        let name = path.display().to_string();
        // Streamed: no run's text holds the file, only a block and what was pending.
        let streamed: Vec<Chunk> = chunks(&path).collect();
        for c in &streamed {
            if let Content::Text { text, .. } = &c.content {
                assert!(text.text.len() <= 2 * BLOCK_BYTES, "{}", text.text.len());
            }
        }
        let whole = texts(chunks_of_bytes(&name, text.clone().into_bytes()).into_iter());
        let streamed = texts(streamed.into_iter());
        assert!(whole.len() > 100, "{}", whole.len());
        assert_eq!(streamed.len(), whole.len());
        assert!(streamed == whole, "the cuts differ");
        let joined: String = streamed.iter().map(|(_, _, t)| t.as_str()).collect();
        assert!(joined == text);
        // The games, numbered within the file.
        let games: Vec<_> = read_chunks(chunks(&path)).collect();
        let n = text.matches("[Event ").count();
        assert_eq!(games.len(), n);
        for (i, g) in games.iter().enumerate().step_by(997) {
            let g = g.as_ref().unwrap();
            assert_eq!(g.source.index, i);
            assert_eq!(g.tags.event.as_deref(), Some(format!("第{i}局").as_str()));
            assert_eq!(g.moves.len(), 4);
        }
    }

    #[test]
    fn a_later_block_in_another_encoding_is_decoded_on_its_own() {
        let mut bytes = big_pgn(STREAM_FROM as usize + BLOCK_BYTES).into_bytes();
        // One game in GBK after the first block ("炮二平五" in GBK: C5DA B6FE C6BD CEE5).
        bytes.extend_from_slice(b"[Event \"gbk\"]\n\n1. \xc5\xda\xb6\xfe\xc6\xbd\xce\xe5 *\n");
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(&bytes).unwrap();
        let games: Vec<_> = read_chunks(chunks(f.path())).collect();
        let last = games.last().unwrap().as_ref().unwrap();
        assert_eq!(last.tags.event.as_deref(), Some("gbk"));
        assert_eq!(last.moves.len(), 1);
        assert_eq!(last.moves[0].text, "炮二平五");
    }

    #[test]
    fn a_large_utf16_file_is_read_whole() {
        let text = big_pgn(STREAM_FROM as usize);
        let mut bytes = vec![0xff, 0xfe];
        bytes.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
        assert!(bytes.len() as u64 >= STREAM_FROM, "{}", bytes.len());
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(&bytes).unwrap();
        // The streamed path declines it: its runs share the whole decoded text.
        let first = chunks(f.path()).next().unwrap();
        match &first.content {
            Content::Text { text: t, .. } => assert_eq!(t.text, text),
            other => panic!("{other:?}"),
        }
        let games = read_chunks(chunks(f.path())).filter(Result::is_ok).count();
        assert_eq!(games, text.matches("[Event ").count());
    }
}
