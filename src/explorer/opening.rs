//! Opening names: the ECCO table (`data/ecco-names.tsv`, see `data/README.md` for its source)
//! and the Janggi formations.

use std::{collections::HashMap, sync::OnceLock};

use serde::{Deserialize, Serialize};

use crate::rules::Variant;

/// An opening name.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Opening {
    /// ECCO code, e.g. `C48` (empty for Janggi).
    pub ecco: String,
    /// Name.
    pub name: String,
}

const ECCO_TSV: &str = include_str!("../../data/ecco-names.tsv");

/// The name of an ECCO code (`C48` → `中炮过河车互进七兵对屏风马平炮兑车 — 红仕角炮对黑退边炮`),
/// `None` if the table has no such code.
///
/// ```
/// assert_eq!(qipu::explorer::ecco_name("A01").as_deref(), Some("上仕局"));
/// assert_eq!(qipu::explorer::ecco_name("Z99"), None);
/// ```
pub fn ecco_name(code: &str) -> Option<String> {
    let &(opening, variation) = ecco_table().get(code)?;
    Some(if variation.is_empty() {
        opening.to_string()
    } else {
        format!("{opening} — {variation}")
    })
}

/// The ECCO table, parsed once: code → (opening, variation).
fn ecco_table() -> &'static HashMap<&'static str, (&'static str, &'static str)> {
    static TABLE: OnceLock<HashMap<&str, (&str, &str)>> = OnceLock::new();
    TABLE.get_or_init(|| {
        ECCO_TSV
            .lines()
            .skip(1)
            .filter_map(|line| {
                let mut f = line.split('\t');
                let code = f.next()?;
                let opening = f.next().unwrap_or("").trim();
                Some((code, (opening, f.next().unwrap_or("").trim())))
            })
            .collect()
    })
}

/// Turns a stored opening label into an [`Opening`]: an ECCO code with its name (Xiangqi), or
/// a `first/second` formation pair (Janggi, `ecco` empty).
pub fn opening_from_label(variant: Variant, label: &str) -> Opening {
    match variant {
        Variant::Xiangqi => Opening {
            ecco: label.to_string(),
            name: ecco_name(label).unwrap_or_default(),
        },
        Variant::Janggi => {
            let (cho, han) = label.split_once('/').unwrap_or((label, "?"));
            Opening {
                ecco: String::new(),
                name: format!("초 {cho} / 한 {han}"),
            }
        }
    }
}

/// Names a position from the opening labels of the games through it (label → games).
///
/// Janggi: the most frequent formation pair. Xiangqi: ECCO classifies move sequences, not
/// positions, so a position is named only as far as its games agree. The ECCO code that at
/// least two thirds of the labelled games carry names it fully. Otherwise the name is the
/// longest beginning of the opening names (the table's first column, e.g. `仙人指路…`) that two
/// thirds of the games share, if it is at least two characters long, with the common prefix of
/// their codes; otherwise the position has no name. The start position, where every opening
/// passes, is not given one.
///
/// ```
/// use std::{collections::HashMap, sync::OnceLock};
/// use qipu::{explorer::name_position, rules::Variant};
/// let labels = |v: &[(&str, u64)]| -> HashMap<String, u64> {
///     v.iter().map(|(k, n)| (k.to_string(), *n)).collect()
/// };
/// assert_eq!(name_position(Variant::Xiangqi, &labels(&[("A00", 3), ("C42", 3), ("E10", 3)])), None);
/// assert_eq!(name_position(Variant::Xiangqi, &labels(&[("A01", 8), ("E10", 2)])).unwrap().ecco, "A01");
/// let shared = name_position(Variant::Xiangqi, &labels(&[("C41", 4), ("C42", 4), ("A00", 1)])).unwrap();
/// assert_eq!((shared.ecco.as_str(), shared.name.as_str()), ("C4", "中炮过河车互进七兵对屏风马平炮兑车"));
/// ```
pub fn name_position(variant: Variant, labels: &HashMap<String, u64>) -> Option<Opening> {
    // Games without a label say nothing about the opening.
    let labels: Vec<(&String, u64)> = labels
        .iter()
        .filter(|(l, _)| !l.is_empty())
        .map(|(l, n)| (l, *n))
        .collect();
    let most = labels
        .iter()
        .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(a.0)))?;
    if variant == Variant::Janggi {
        return Some(opening_from_label(variant, most.0));
    }
    let total: u64 = labels.iter().map(|(_, n)| n).sum();
    let enough = |n: u64| 3 * n >= 2 * total;
    if enough(most.1) {
        return Some(opening_from_label(variant, most.0));
    }
    let named: Vec<(&String, Vec<char>, u64)> = labels
        .iter()
        .filter_map(|(code, n)| Some((*code, ecco_family(code)?.chars().collect(), *n)))
        .collect();
    // Grow the shared beginning one character at a time while two thirds of the games keep it.
    let mut prefix: Vec<char> = Vec::new();
    loop {
        let mut next: HashMap<char, u64> = HashMap::new();
        for (_, name, n) in &named {
            if name.len() > prefix.len() && name.starts_with(&prefix) {
                *next.entry(name[prefix.len()]).or_default() += n;
            }
        }
        match next
            .into_iter()
            .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(&a.0)))
        {
            Some((c, n)) if enough(n) => prefix.push(c),
            _ => break,
        }
    }
    if prefix.len() < 2 {
        return None;
    }
    let codes: Vec<&String> = named
        .iter()
        .filter(|(_, name, _)| name.starts_with(&prefix))
        .map(|(c, _, _)| *c)
        .collect();
    let first = codes.first().map(|c| c.as_str()).unwrap_or("");
    let common = codes.iter().fold(first.len(), |len, c| {
        first
            .bytes()
            .zip(c.bytes())
            .take(len)
            .take_while(|(a, b)| a == b)
            .count()
    });
    Some(Opening {
        ecco: first[..common].to_string(),
        name: prefix.into_iter().collect(),
    })
}

/// The opening family of an ECCO code: the first column of the table.
fn ecco_family(code: &str) -> Option<&'static str> {
    ecco_table().get(code).map(|&(opening, _)| opening)
}
