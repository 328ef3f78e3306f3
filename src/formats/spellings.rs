//! The spelling file, like SCID's: one person a line, `person<TAB>spelling<TAB>spelling…`,
//! every column a name of that person in any script or romanization; `#` starts a comment,
//! blank lines are skipped. The first column names the person. Owns only reading the text
//! (qipu's own `data/players.tsv` and the user's `qipu players --spellings FILE`); the
//! player index applies it.

use super::names::fold;

/// One line of a spelling file: the names (as written) of one person.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpellingLine {
    /// Its line number, from 1.
    pub line: usize,
    /// The person's name (the first column).
    pub person: String,
    /// Every other column.
    pub spellings: Vec<String>,
}

/// The lines of a spelling file's text; `file` names it in errors.
///
/// ```
/// use qipu::formats::spellings::parse;
/// let text = "# facts\n胡榮華\tHU RongHua\tHu Ronghua\n\n呂欽\tLv Qin\n";
/// let lines = parse(text, "players.tsv").unwrap();
/// assert_eq!(lines.len(), 2);
/// assert_eq!(lines[1].line, 4);
/// assert_eq!(lines[0].spellings, ["HU RongHua", "Hu Ronghua"]);
/// let e = parse("胡榮華\n", "mine.tsv").unwrap_err();
/// assert!(e.starts_with("mine.tsv:1: "), "{e}");
/// ```
///
/// # Errors
/// `FILE:LINE: why` for a line with fewer than two names, an empty column, or a name that
/// an earlier line already gives to another person.
pub fn parse(text: &str, file: &str) -> Result<Vec<SpellingLine>, String> {
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let body = raw.split('#').next().unwrap_or("");
        if body.trim().is_empty() {
            continue;
        }
        let cols: Vec<&str> = body.trim_end().split('\t').map(str::trim).collect();
        if cols.iter().any(|c| c.is_empty()) {
            return Err(format!(
                "{file}:{line}: an empty column (columns are separated by one tab)"
            ));
        }
        if cols.len() < 2 {
            return Err(format!(
                "{file}:{line}: `{}` has no spelling (person<TAB>spelling<TAB>…)",
                cols[0]
            ));
        }
        let mut own: Vec<String> = Vec::new();
        for c in &cols {
            let f = fold(c);
            if let Some(&earlier) = seen.get(&f).filter(|_| !own.contains(&f)) {
                return Err(format!(
                    "{file}:{line}: `{c}` is already a spelling on line {earlier}"
                ));
            }
            seen.insert(f.clone(), line);
            own.push(f);
        }
        out.push(SpellingLine {
            line,
            person: cols[0].to_string(),
            spellings: cols[1..].iter().map(|c| (*c).to_string()).collect(),
        });
    }
    Ok(out)
}
