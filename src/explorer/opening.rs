//! Opening names: the ECCO table (`data/ecco-names.tsv`, see `data/README.md` for its source)
//! and the Janggi formations.

use super::Opening;
use crate::rules::Variant;

const ECCO_TSV: &str = include_str!("../../data/ecco-names.tsv");

/// The name of an ECCO code (`C48` → `中炮过河车互进七兵对屏风马平炮兑车 — 红仕角炮对黑退边炮`),
/// `None` if the table has no such code.
///
/// ```
/// assert_eq!(qipu::explorer::ecco_name("A01").as_deref(), Some("上仕局"));
/// assert_eq!(qipu::explorer::ecco_name("Z99"), None);
/// ```
pub fn ecco_name(code: &str) -> Option<String> {
    ECCO_TSV.lines().skip(1).find_map(|line| {
        let mut f = line.split('\t');
        if f.next()? != code {
            return None;
        }
        let opening = f.next().unwrap_or("").trim();
        let variation = f.next().unwrap_or("").trim();
        Some(if variation.is_empty() {
            opening.to_string()
        } else {
            format!("{opening} — {variation}")
        })
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
