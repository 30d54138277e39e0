//! The engine against the rule as stated, on random sets held in memory and spilled.
use super::*;

type Links = Vec<(String, Vec<(String, String)>)>; // page, its links once an href, first code

/// Each page of a group (a page and its alternates) must link to every member; each
/// (page, target) once, in the order pages were added.
fn missing_as_stated(links: &Links, include_self: bool) -> Vec<MissingLink> {
    let own = |page: &str| links.iter().find(|(loc, _)| loc == page).map(|(_, l)| l);
    let mut out: Vec<MissingLink> = Vec::new();
    for (loc, mine) in links {
        let mut group: Vec<(&str, &str)> =
            mine.iter().map(|(h, c)| (h.as_str(), c.as_str())).collect();
        if !mine.iter().any(|(h, _)| h == loc) {
            group.push((loc, ""));
        }
        for (page, _) in &group {
            let Some(theirs) = own(page) else { continue };
            for (target, code) in &group {
                let reported = out.iter().any(|m| m.page == *page && m.target == *target);
                if theirs.iter().any(|(h, _)| h == target) || reported {
                    continue;
                }
                if page == target && !include_self {
                    continue;
                }
                out.push(MissingLink {
                    page: (*page).into(),
                    target: (*target).into(),
                    hreflang: (*code).into(),
                    named_by: loc.clone(),
                });
            }
        }
    }
    out
}

fn unlisted_as_stated(links: &Links, plain: &[String]) -> Vec<Unlisted> {
    let mut out: Vec<Unlisted> = Vec::new();
    for (loc, mine) in links {
        for (href, code) in mine {
            let has = links.iter().any(|(l, _)| l == href);
            if !has && !out.iter().any(|u| &u.variant == href) {
                out.push(Unlisted {
                    variant: href.clone(),
                    hreflang: code.clone(),
                    named_by: loc.clone(),
                    in_set: plain.contains(href),
                });
            }
        }
    }
    out
}

struct Draw(u64);

impl Draw {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = mixed(self.0.wrapping_add(1));
        self.0 % n
    }
}

fn random_set(seed: u64, pages: u64, names: u64) -> (Links, Links, Vec<String>) {
    let mut draw = Draw(seed);
    let name = |i: u64| format!("https://example.com/p/{i}");
    let (mut given, mut links, mut plain) = (Vec::new(), Links::new(), Vec::new());
    for _ in 0..pages {
        let loc = name(draw.below(names));
        let mut found: Vec<(String, String)> = Vec::new();
        for _ in 0..draw.below(5) {
            let code = ["en", "de", "x-default"][draw.below(3) as usize].to_string();
            found.push((name(draw.below(names)), code));
        }
        if draw.below(10) < 7 && !found.is_empty() {
            found.push((loc.clone(), "en".into()));
        }
        // one link an href: the first place, the last code
        let mut once: Vec<(String, String)> = Vec::new();
        for (href, code) in &found {
            match once.iter_mut().find(|(h, _)| h == href) {
                Some(link) => link.1 = code.clone(),
                None => once.push((href.clone(), code.clone())),
            }
        }
        if once.is_empty() {
            plain.push(loc.clone());
        } else {
            match links.iter_mut().find(|(l, _)| *l == loc) {
                Some((_, mine)) => {
                    for link in once {
                        if !mine.iter().any(|(h, _)| *h == link.0) {
                            mine.push(link);
                        }
                    }
                }
                None => links.push((loc.clone(), once)),
            }
        }
        given.push((loc, found));
    }
    (given, links, plain)
}

fn engine(given: &[(String, Vec<(String, String)>)], spill_bytes: usize, batch: usize) -> LinkSet {
    let mut set = LinkSet::new(spill_bytes, batch);
    for (loc, found) in given {
        if found.is_empty() {
            set.add_plain(&[loc_hash(loc)]).unwrap();
        } else {
            set.add_page(loc, found).unwrap();
        }
    }
    set
}

#[test]
fn the_engine_finds_what_the_rule_says_in_memory_and_spilled() {
    // the last: buckets of thousands of rows from several runs (sorted by their hashes' bits)
    let cases = [
        (1, SPILL_BYTES, STRING_BATCH, 1500),
        (2, 4096, 16, 1500),
        (3, 256, 3, 1500),
        (4, 1 << 17, 512, 3000),
    ];
    for (seed, spill_bytes, batch, pages) in cases {
        let (given, links, plain) = random_set(seed, pages, pages * 3 / 5);
        let mut set = engine(&given, spill_bytes, batch);
        for include_self in [false, true] {
            let said = set.judge(None, include_self, None).unwrap();
            let expected = missing_as_stated(&links, include_self);
            assert!(expected.len() > 1000);
            assert_eq!(said.missing, expected);
            assert_eq!(said.missing_count, expected.len() as u64);
            assert_eq!(said.pages, links.len() as u64);
        }
        let said = set.judge(None, false, None).unwrap();
        let unlisted = unlisted_as_stated(&links, &plain);
        assert_eq!(said.unlisted, unlisted);
        let in_set = unlisted.iter().filter(|u| u.in_set).count() as u64;
        assert!(in_set > 0);
        assert_eq!(
            (said.unlisted_in_set, said.unlisted_outside),
            (in_set, unlisted.len() as u64 - in_set)
        );
        let capped = set.judge(Some(7), false, None).unwrap();
        assert_eq!(capped.missing, said.missing[..7]);
        assert_eq!(capped.missing_count, said.missing_count);
        let mut room = [7, 7];
        let first: Vec<Unlisted> = said
            .unlisted
            .iter()
            .filter(|u| {
                let left = &mut room[usize::from(u.in_set)];
                *left > 0 && {
                    *left -= 1;
                    true
                }
            })
            .cloned()
            .collect();
        assert_eq!(capped.unlisted, first);
        let none = set.judge(Some(0), false, None).unwrap();
        assert!(none.unlisted.is_empty() && none.missing.is_empty());
        assert_eq!(none.unlisted_outside, said.unlisted_outside);
        let spilled = set.spill_path().map(Path::to_path_buf);
        assert_eq!(spilled.is_some(), spill_bytes < SPILL_BYTES);
        drop(set);
        assert!(spilled.is_none_or(|dir| !dir.exists()));
    }
}

#[test]
fn known_places_variants_in_the_set_and_keeps_them() {
    let mut set = LinkSet::default();
    let links = [
        ("https://a.org/de", "de"),
        ("https://a.org/en", "en"),
        ("https://b.org/fr", "fr"),
    ];
    set.add_page("https://a.org/en", &links).unwrap();
    let mut asked = Vec::new();
    let mut known = |hashes: &[u64], hrefs: &mut dyn FnMut() -> io::Result<Vec<String>>| {
        let hrefs = hrefs()?;
        asked.extend(hrefs.clone());
        assert_eq!(hashes.len(), hrefs.len());
        Ok(hrefs
            .iter()
            .map(|h| h.starts_with("https://a.org/"))
            .collect())
    };
    let said = set.judge(Some(1000), false, Some(&mut known)).unwrap();
    assert_eq!(asked, ["https://a.org/de", "https://b.org/fr"]);
    let flags: Vec<(&str, bool)> = said
        .unlisted
        .iter()
        .map(|u| (u.variant.as_str(), u.in_set))
        .collect();
    assert_eq!(
        flags,
        [("https://a.org/de", true), ("https://b.org/fr", false)]
    );
    let again = set.judge(Some(1000), false, None).unwrap();
    assert_eq!(again.unlisted, said.unlisted);
}

#[test]
fn a_later_link_to_the_same_href_wins_at_the_first_place() {
    let mut set = LinkSet::default();
    let links = [
        ("https://a.org/x", "en"),
        ("https://a.org/y", "de"),
        ("https://a.org/x", "fr"),
    ];
    set.add_page("https://a.org/p", &links).unwrap();
    let said = set.judge(None, false, None).unwrap();
    let named: Vec<(&str, &str)> = said
        .unlisted
        .iter()
        .map(|u| (u.variant.as_str(), u.hreflang.as_str()))
        .collect();
    assert_eq!(
        named,
        [("https://a.org/x", "fr"), ("https://a.org/y", "de")]
    );
}
