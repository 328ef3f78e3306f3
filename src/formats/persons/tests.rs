//! The rules on real names: the ccpd master games (../shared/data/xiangqi/ccpd, Big5 PGN)
//! and the gib nicknames (../shared/data/janggi/gib), with their game counts there.

use super::{base, persons, readings, roman_key, without_rank, Name};

fn names(list: &[(&str, u64)]) -> Vec<Name> {
    list.iter()
        .enumerate()
        .map(|(i, (n, g))| Name {
            id: i as i64 + 1,
            name: n.to_string(),
            games: *g,
        })
        .collect()
}

#[test]
fn ranks_come_off() {
    assert_eq!(without_rank("타이슨#401 5단").0, "타이슨#401");
    assert_eq!(without_rank("타이슨#401 7단").1, Some("7단"));
    assert_eq!(without_rank("許銀川９段").0, "許銀川");
    assert_eq!(without_rank("5단"), ("5단", None));
    assert_eq!(without_rank("단"), ("단", None));
    assert_eq!(
        without_rank("고수단"),
        ("고수단", None),
        "no digits, no rank"
    );
}

#[test]
fn known_places_come_off() {
    for (written, person) in [
        ("上海胡榮華", "胡荣华"),
        ("廣東 許銀川", "许银川"),
        ("中國胡榮華", "胡荣华"),
        ("中華臺北 吳貴臨", "吴贵临"),
        ("黑龍江趙國榮", "赵国荣"),
        ("火車頭於幼華", "于幼华"),
        ("上  海 胡榮華", "胡荣华"),
        ("廣東　許銀川", "许银川"),
    ] {
        assert_eq!(base(written), person, "{written}");
    }
    // Two characters stay: a name that is a place word keeps it.
    assert_eq!(base("北京"), "北京");
    assert_eq!(base("河北張江"), "张江");
}

#[test]
fn pinyin_keys() {
    assert!(readings("胡荣华").contains(&"huronghua".to_string()));
    assert!(readings("胡荣华").contains(&"ronghuahu".to_string()));
    assert!(readings("吕钦").contains(&"luqin".to_string()));
    assert!(
        readings("单霞丽").contains(&"shanxiali".to_string()),
        "heteronyms"
    );
    for r in ["Lv Qin", "Lü Qin", "LU QIN", "lu-qin"] {
        assert_eq!(roman_key(r).as_deref(), Some("luqin"), "{r}");
    }
    assert_eq!(roman_key("胡荣华"), None);
    assert_eq!(roman_key("player12"), None);
}

#[test]
fn spellings_of_masters_are_one_person() {
    let n = names(&[
        ("胡榮華", 505),
        ("上海胡榮華", 724),
        ("上海 胡榮華", 134),
        ("中國胡榮華", 10),
        ("上海八建胡榮華", 10),
        ("HU RongHua", 1364),
        ("Ronghua Hu", 3),
        ("呂欽", 509),
        ("廣東呂欽", 631),
        ("Lv Qin", 155),
        ("Lü Qin", 2),
        ("許銀川", 502),
        ("廣東 許銀川", 63),
        ("XU YinChuan", 20),
        ("타이슨#401 5단", 200),
        ("타이슨#401 6단", 300),
        ("타이슨#401 7단", 209),
    ]);
    let p = persons(&n, &[]);
    let of = |i: usize| p[&(i as i64)];
    for i in 2..=7 {
        assert_eq!(of(i), of(6), "{}", n[i - 1].name);
    }
    assert_eq!(of(6), 6, "named by the spelling with most games");
    for i in 9..=11 {
        assert_eq!(of(i), of(8), "{}", n[i - 1].name);
    }
    assert_eq!(of(13), of(12));
    assert_eq!(of(14), of(12));
    assert_eq!(of(15), of(16));
    assert_eq!(of(17), of(16));
    let distinct: std::collections::HashSet<i64> = p.values().copied().collect();
    assert_eq!(distinct.len(), 4);
}

#[test]
fn names_that_met_stay_apart() {
    // 王斌 of 江蘇 and 王斌 are one name; two who played each other are not.
    let n = names(&[
        ("王斌", 138),
        ("江蘇王斌", 60),
        ("趙國榮", 447),
        ("趙鑫鑫", 147),
    ]);
    let p = persons(&n, &[(1, 2)]);
    assert_ne!(p[&1], p[&2]);
    assert_ne!(p[&3], p[&4]);
}

#[test]
fn a_reading_of_two_persons_merges_nothing() {
    // 李強 and 李嬙 both read "li qiang": "Li Qiang" is neither.
    let n = names(&[("李強", 10), ("李嬙", 5), ("Li Qiang", 3)]);
    let p = persons(&n, &[]);
    assert_eq!(
        p.values().collect::<std::collections::HashSet<_>>().len(),
        3
    );
}

#[test]
fn short_rests_and_pairs_stay() {
    // A pair of players is not one of them; a one-character rest is no name.
    let n = names(&[
        ("呂欽", 509),
        ("黨國蕾+呂欽", 7),
        ("黃海林", 114),
        ("林", 1),
    ]);
    let p = persons(&n, &[]);
    assert_ne!(p[&1], p[&2]);
    assert_ne!(p[&3], p[&4]);
}
