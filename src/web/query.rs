//! Query strings: percent-decoding, size limits and typed parameter readers.
//!
//! Every reader returns a [`BadRequest`] naming the parameter, which the router turns into an
//! HTTP 400 with a JSON error.

use std::fmt;

/// Longest request target (path and query) accepted, in bytes.
pub const MAX_TARGET: usize = 8 * 1024;
/// Longest single parameter value accepted, in bytes after decoding.
pub const MAX_VALUE: usize = 4 * 1024;
/// Most parameters accepted in one query string.
pub const MAX_PARAMS: usize = 32;
/// Most moves accepted in `moves=`.
pub const MAX_MOVES: usize = 600;

/// A client error: what was wrong, for the JSON body of an HTTP 400.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadRequest(pub String);

impl fmt::Display for BadRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadRequest {}

/// The decoded parameters of a query string, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Params {
    pairs: Vec<(String, String)>,
}

impl Params {
    /// Splits and decodes a query string (`a=1&b=x+y`; `+` is a space, `%XX` a byte; the
    /// decoded bytes must be UTF-8).
    ///
    /// # Errors
    /// [`BadRequest`] for bad escapes, non-UTF-8 text, too many or too long parameters, or a
    /// parameter given twice.
    pub fn parse(query: &str) -> Result<Params, BadRequest> {
        let mut pairs: Vec<(String, String)> = Vec::new();
        for part in query.split('&').filter(|p| !p.is_empty()) {
            if pairs.len() == MAX_PARAMS {
                return Err(BadRequest(format!(
                    "too many parameters (at most {MAX_PARAMS})"
                )));
            }
            let (k, v) = part.split_once('=').unwrap_or((part, ""));
            let key = decode(k)?;
            let value = decode(v)?;
            if value.len() > MAX_VALUE {
                return Err(BadRequest(format!(
                    "parameter `{key}` is too long (at most {MAX_VALUE} bytes)"
                )));
            }
            if pairs.iter().any(|(k, _)| *k == key) {
                return Err(BadRequest(format!("parameter `{key}` given twice")));
            }
            pairs.push((key, value));
        }
        Ok(Params { pairs })
    }

    /// The value of a parameter; an empty value counts as absent.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.trim())
            .filter(|v| !v.is_empty())
    }

    /// Rejects any parameter not in `known`, so that a misspelt filter is not silently ignored.
    ///
    /// # Errors
    /// [`BadRequest`] naming the first unknown parameter.
    pub fn only(&self, known: &[&str]) -> Result<(), BadRequest> {
        match self
            .pairs
            .iter()
            .find(|(k, _)| !known.contains(&k.as_str()))
        {
            Some((k, _)) => Err(BadRequest(format!(
                "unknown parameter `{k}` (expected one of: {})",
                known.join(", ")
            ))),
            None => Ok(()),
        }
    }

    /// A non-negative integer parameter no larger than `max`.
    ///
    /// # Errors
    /// [`BadRequest`] if it is not a number or is too large.
    pub fn uint(&self, key: &str, max: u64) -> Result<Option<u64>, BadRequest> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => match v.parse::<u64>() {
                Ok(n) if n <= max => Ok(Some(n)),
                Ok(_) => Err(BadRequest(format!("`{key}` must be at most {max}"))),
                Err(_) => Err(BadRequest(format!(
                    "`{key}` must be a non-negative integer, not `{v}`"
                ))),
            },
        }
    }

    /// A boolean parameter: `1`/`true`/`yes` or `0`/`false`/`no`; absent is `false`.
    ///
    /// # Errors
    /// [`BadRequest`] for any other value.
    pub fn flag(&self, key: &str) -> Result<bool, BadRequest> {
        match self.get(key) {
            None => Ok(false),
            Some("1" | "true" | "yes") => Ok(true),
            Some("0" | "false" | "no") => Ok(false),
            Some(v) => Err(BadRequest(format!(
                "`{key}` must be true or false, not `{v}`"
            ))),
        }
    }

    /// A move list: separated by commas and/or white space (`+` in a query string is a space,
    /// so a WXF `+` must be sent as `%2B`).
    ///
    /// # Errors
    /// [`BadRequest`] if there are more than [`MAX_MOVES`] moves.
    pub fn moves(&self, key: &str) -> Result<Vec<String>, BadRequest> {
        let moves: Vec<String> = self
            .get(key)
            .unwrap_or("")
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|m| !m.is_empty())
            .map(str::to_string)
            .collect();
        if moves.len() > MAX_MOVES {
            return Err(BadRequest(format!(
                "`{key}` has {} moves (at most {MAX_MOVES})",
                moves.len()
            )));
        }
        Ok(moves)
    }

    /// A parameter read with `parse` (one of the explorer's parsers, the same the CLI's
    /// arguments use); its message is prefixed with the parameter's name.
    ///
    /// # Errors
    /// [`BadRequest`] naming the parameter, if `parse` refuses the value.
    pub fn parsed<T, E: fmt::Display>(
        &self,
        key: &str,
        parse: impl Fn(&str) -> Result<T, E>,
    ) -> Result<Option<T>, BadRequest> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => parse(v)
                .map(Some)
                .map_err(|e| BadRequest(format!("`{key}`: {e}"))),
        }
    }
}

/// Percent-decodes one component (`+` is a space).
fn decode(s: &str) -> Result<String, BadRequest> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        match c {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = |j: usize| b.get(j).and_then(|h| (*h as char).to_digit(16));
                match (hex(i + 1), hex(i + 2)) {
                    (Some(h), Some(l)) => out.push((h * 16 + l) as u8),
                    _ => {
                        return Err(BadRequest(format!(
                            "bad percent escape in `{}`",
                            s.chars().take(64).collect::<String>()
                        )))
                    }
                }
                i += 2;
            }
            _ => out.push(c),
        }
        i += 1;
    }
    String::from_utf8(out).map_err(|_| BadRequest("query text is not UTF-8".to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_and_limits() {
        let p = Params::parse("a=%E7%82%AE%E4%BA%8C%E5%B9%B3%E4%BA%94&b=C2%2B5&c=").unwrap();
        assert_eq!(p.get("a"), Some("炮二平五"));
        assert_eq!(p.get("b"), Some("C2+5"));
        assert_eq!(p.get("c"), None);
        assert!(Params::parse("a=1&a=2").is_err());
        assert!(Params::parse("a=%e7%82").is_err()); // truncated UTF-8
        assert!(Params::parse("a=%4").is_err());
        let long = format!("a={}", "x".repeat(MAX_VALUE + 1));
        assert!(Params::parse(&long).is_err());
        let many: Vec<String> = (0..=MAX_PARAMS).map(|i| format!("k{i}=1")).collect();
        assert!(Params::parse(&many.join("&")).is_err());
    }

    #[test]
    fn plus_is_a_space_and_moves_split_at_commas() {
        let p = Params::parse("fen=9%2F9+w&moves=h2e2,h9g7").unwrap();
        assert_eq!(p.get("fen"), Some("9/9 w"));
        assert_eq!(p.moves("moves").unwrap(), vec!["h2e2", "h9g7"]);
        assert!(Params::parse("a=%zz").is_err());
    }

    #[test]
    fn parsed_names_the_parameter() {
        let p = Params::parse("n=12&x=y").unwrap();
        assert_eq!(p.parsed("n", str::parse::<u8>), Ok(Some(12)));
        assert_eq!(p.parsed("none", str::parse::<u8>), Ok(None));
        let e = p.parsed("x", str::parse::<u8>).unwrap_err();
        assert!(e.0.starts_with("`x`: "), "{e}");
    }

    #[test]
    fn typed_readers() {
        let p = Params::parse("n=12&big=99999&neg=-1&d=2007-01&bad=2007-13&f=yes").unwrap();
        assert_eq!(p.uint("n", 100), Ok(Some(12)));
        assert!(p.uint("big", 100).is_err());
        assert!(p.uint("neg", 100).is_err());
        assert_eq!(p.uint("none", 100), Ok(None));
        assert_eq!(p.flag("f"), Ok(true));
        assert!(p.only(&["n", "big", "neg", "d", "bad"]).is_err());
    }
}
