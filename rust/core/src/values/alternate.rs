//! The hreflang extension's values as a build takes them (`extensions/hreflang.py`
//! `Alternate`): a language or region variant of the page, `<xhtml:link rel="alternate"
//! hreflang=".." href=".."/>`. A value the Python class would refuse or change in a way this
//! module does not know gives None: the row then goes the per-entry way, which explains it.
//! What is taken is written byte for byte as `Alternate.body` writes it.

use super::image::image_uri;
use crate::write::escape::escape_into;

/// The XHTML namespace, as the root or a `<url>` declares it.
pub const XHTML_NS: &str = "http://www.w3.org/1999/xhtml";

/// field_checks.ISO_639_1: the two-letter language codes an hreflang or a news language may be.
pub const ISO_639_1: &str = "aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca \
ce ch co cr cs cu cv cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv \
ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks \
ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr \
nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss \
st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh \
zu";

/// field_checks.ISO_3166_1, the region codes an hreflang may name.
pub const ISO_3166_1: &str =
    "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI \
BJ BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE \
DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS \
GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW \
KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW \
MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO \
RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM \
TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW";

/// A set of two-letter codes as a bit per second letter in a row per first letter (either
/// case): a lookup is two shifts, where a scan of the list took ~500 instructions.
pub struct TwoLetterCodes([u32; 26]);

impl TwoLetterCodes {
    /// The codes of `list`: two ASCII letters each, one space between them (checked when
    /// the constant is built: a bad list does not compile).
    const fn of(list: &str) -> TwoLetterCodes {
        let bytes = list.as_bytes();
        let mut rows = [0u32; 26];
        let mut i = 0;
        while i + 1 < bytes.len() {
            let (a, b) = (
                bytes[i].to_ascii_lowercase(),
                bytes[i + 1].to_ascii_lowercase(),
            );
            assert!(
                a.is_ascii_lowercase() && b.is_ascii_lowercase(),
                "two letters a code"
            );
            assert!(
                i + 2 == bytes.len() || bytes[i + 2] == b' ',
                "one space between codes"
            );
            rows[(a - b'a') as usize] |= 1 << (b - b'a');
            i += 3;
        }
        assert!(i == bytes.len() + 1, "no partial code at the end");
        TwoLetterCodes(rows)
    }

    /// Whether `code` is one of the set, in either case.
    pub fn holds(&self, code: &str) -> bool {
        match code.as_bytes() {
            &[a, b] if a.is_ascii_alphabetic() && b.is_ascii_alphabetic() => {
                let (a, b) = (a.to_ascii_lowercase() - b'a', b.to_ascii_lowercase() - b'a');
                self.0[a as usize] & (1 << b) != 0
            }
            _ => false,
        }
    }
}

/// [`ISO_639_1`] as a set.
pub const LANGUAGES: TwoLetterCodes = TwoLetterCodes::of(ISO_639_1);
/// [`ISO_3166_1`] as a set.
pub const REGIONS: TwoLetterCodes = TwoLetterCodes::of(ISO_3166_1);

/// An hreflang in the canonical case `hreflang.hreflang_code` gives it (`en`, `en-GB`,
/// `zh-Hant-TW`, `es-419`, `x-default`), of a value as given (stripped first, as Python
/// strips); None for anything that function rejects (an `_` separator too: it says so).
pub fn hreflang_code(value: &str) -> Option<String> {
    let mut code = String::with_capacity(value.len());
    push_hreflang_code(value, &mut code)?;
    Some(code)
}

/// [`hreflang_code`] appended to `out` (left as it was on None).
fn push_hreflang_code(value: &str, out: &mut String) -> Option<()> {
    if common_code(value, out) {
        return Some(());
    }
    any_code(value, out)
}

/// The codes sites write most, a known language (`en`) or a known language and region
/// (`en-gb`), appended to `out` in the canonical form [`any_code`] gives them, without its
/// steps (~300 instructions a code there); false (`out` as it was) for anything else.
fn common_code(value: &str, out: &mut String) -> bool {
    let known = |set: &TwoLetterCodes, at: usize| set.holds(value.get(at..at + 2).unwrap_or(""));
    let b = value.as_bytes();
    let region = match b.len() {
        2 if known(&LANGUAGES, 0) => None,
        5 if b[2] == b'-' && known(&LANGUAGES, 0) && known(&REGIONS, 3) => Some(&b[3..]),
        _ => return false,
    };
    // ASCII letters only: `holds` took nothing else
    out.extend(b[..2].iter().map(|c| char::from(c.to_ascii_lowercase())));
    if let Some(region) = region {
        out.push('-');
        out.extend(region.iter().map(|c| char::from(c.to_ascii_uppercase())));
    }
    true
}

/// [`push_hreflang_code`] for any value, step by step.
fn any_code(value: &str, out: &mut String) -> Option<()> {
    // no code holds a non-ASCII letter: Python explains one
    let value = super::scalars::trim_python_space(value)?;
    if value.eq_ignore_ascii_case("x-default") {
        out.push_str("x-default");
        return Some(());
    }
    let letters = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_alphabetic());
    let mut parts = value.split('-').peekable();
    let language = parts.next()?;
    let two = LANGUAGES.holds(language);
    if !two && !letters(language, 3) {
        return None;
    }
    let script = parts.next_if(|s| letters(s, 4));
    let region = parts.next();
    if parts.next().is_some() {
        return None;
    }
    if let Some(region) = region {
        let numeric = region.len() == 3 && region.bytes().all(|b| b.is_ascii_digit());
        if !REGIONS.holds(region) && !numeric {
            return None;
        }
    }
    // ASCII only from here: the checks above held every letter and digit to it
    fn cased(text: &str, upper: bool) -> impl Iterator<Item = char> + '_ {
        text.bytes().map(move |b| match upper {
            true => char::from(b.to_ascii_uppercase()),
            false => char::from(b.to_ascii_lowercase()),
        })
    }
    out.extend(cased(language, false));
    if let Some(script) = script {
        out.push('-');
        out.extend(cased(&script[..1], true).chain(cased(&script[1..], false)));
    }
    if let Some(region) = region {
        out.push('-');
        out.extend(cased(region, true));
    }
    Some(())
}

/// One `<xhtml:link rel="alternate">`: its canonical hreflang and its href (a URI), held
/// in one text (one allocation a link: a build checks two or more links a row).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alternate {
    /// The hreflang, then the href.
    text: String,
    hreflang_len: usize,
}

impl Alternate {
    /// The link of an hreflang and an href as given, checked as the Python class checks
    /// them; None when one needs the Python check.
    pub fn checked(hreflang: &str, href: &str) -> Option<Alternate> {
        let href = image_uri(href)?;
        let mut text = String::with_capacity(hreflang.len() + href.len());
        push_hreflang_code(hreflang, &mut text)?;
        let hreflang_len = text.len();
        text.push_str(&href);
        Some(Alternate { text, hreflang_len })
    }

    /// The canonical hreflang.
    pub fn hreflang(&self) -> &str {
        &self.text[..self.hreflang_len]
    }

    /// The href, a URI.
    pub fn href(&self) -> &str {
        &self.text[self.hreflang_len..]
    }

    /// The element as `Alternate.body` writes it (the root or the `<url>` declares xhtml).
    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"<xhtml:link rel=\"alternate\" hreflang=\"");
        out.extend_from_slice(self.hreflang().as_bytes());
        out.extend_from_slice(b"\" href=\"");
        escape_into(out, self.href());
        out.extend_from_slice(b"\"/>");
    }
}

/// Whether an hreflang names two hrefs among `links` (`hreflang.hreflang_duplicate`, an
/// error a build repairs by leaving the later link out: the per-entry way does that).
pub fn duplicate<'a>(links: impl Iterator<Item = &'a Alternate> + Clone) -> bool {
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for link in links {
        // canonical codes: their lower case is ASCII's
        match seen
            .iter()
            .find(|(code, _)| code.eq_ignore_ascii_case(link.hreflang()))
        {
            Some((_, href)) if *href != link.href() => return true,
            Some(_) => {}
            None => seen.push((link.hreflang(), link.href())),
        }
    }
    false
}

/// The codes `hreflang.hreflang_missing_self` names ("en, de") when links are given and
/// none points to the page `loc` itself; None when the rule holds.
pub fn missing_self<'a>(
    loc: &str,
    links: impl Iterator<Item = &'a Alternate> + Clone,
) -> Option<String> {
    let mut codes = links.clone().map(Alternate::hreflang).peekable();
    codes.peek()?;
    if links.clone().any(|link| link.href() == loc) {
        return None;
    }
    Some(codes.collect::<Vec<_>>().join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_sets_hold_what_their_lists_name_in_either_case() {
        for (set, list) in [(&LANGUAGES, ISO_639_1), (&REGIONS, ISO_3166_1)] {
            for a in b'a'..=b'z' {
                for b in b'a'..=b'z' {
                    let code = String::from_utf8(vec![a, b]).unwrap();
                    let listed = list.split(' ').any(|c| c.eq_ignore_ascii_case(&code));
                    assert_eq!(set.holds(&code), listed, "{code}");
                    assert_eq!(set.holds(&code.to_ascii_uppercase()), listed, "{code}");
                }
            }
            for other in ["", "e", "eng", "e1", "é", "-n"] {
                assert!(!set.holds(other), "{other:?}");
            }
        }
    }

    #[test]
    fn common_codes_are_what_the_steps_make_of_them() {
        let mut given: Vec<String> = Vec::new();
        for a in (b'a'..=b'z').chain([b'A', b'E', b'Z', b'1', b'-', b' ']) {
            for b in (b'a'..=b'z').chain([b'B', b'N', b'0', b'_']) {
                let language = String::from_utf8(vec![a, b]).unwrap();
                for region in ["", "-GB", "-gb", "-Us", "-XX", "-1", "_GB", "-419", "GB"] {
                    given.push(format!("{language}{region}"));
                }
            }
        }
        given
            .extend(["é", "éé", "en-é", "x-default", " en", "en ", "en-GB ", ""].map(String::from));
        let mut common = 0;
        for value in &given {
            let mut stepped = String::new();
            let expected = any_code(value, &mut stepped).map(|()| stepped);
            let mut fast = String::new();
            if common_code(value, &mut fast) {
                common += 1;
                assert_eq!(Some(fast.as_str()), expected.as_deref(), "{value:?}");
            } else {
                assert!(fast.is_empty(), "{value:?}");
            }
            assert_eq!(hreflang_code(value), expected, "{value:?}");
        }
        assert!(common > 500, "{common}"); // the fast way taken often
    }

    #[test]
    fn codes_are_made_canonical_as_python_makes_them() {
        for (given, code) in [
            ("en", Some("en")),
            (" EN-gb ", Some("en-GB")),
            ("zh-hant-tw", Some("zh-Hant-TW")),
            ("es-419", Some("es-419")),
            ("X-Default", Some("x-default")),
            ("fil", Some("fil")),
            ("en_GB", None),
            ("xx", None),
            ("en-UK", None),
            ("en-", None),
            ("en-Latn-GB-x", None),
            ("énglish", None),
            ("", None),
        ] {
            assert_eq!(hreflang_code(given).as_deref(), code, "{given:?}");
        }
    }

    #[test]
    fn a_link_is_written_as_the_python_class_writes_it() {
        let link = Alternate::checked("de", "https://x.org/dé?a=1&b='2'").unwrap();
        let mut out = Vec::new();
        link.write(&mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "<xhtml:link rel=\"alternate\" hreflang=\"de\" \
             href=\"https://x.org/d%C3%A9?a=1&amp;b=&apos;2&apos;\"/>"
        );
        assert!(Alternate::checked("de", "/relative").is_none());
    }

    #[test]
    fn the_per_url_rules() {
        let links = [
            Alternate::checked("en", "https://x.org/a").unwrap(),
            Alternate::checked("de", "https://x.org/de/a").unwrap(),
        ];
        assert_eq!(missing_self("https://x.org/a", links.iter()), None);
        assert_eq!(
            missing_self("https://x.org/b", links.iter()).as_deref(),
            Some("en, de")
        );
        assert_eq!(missing_self("https://x.org/b", [].iter()), None);
        assert!(!duplicate(links.iter()));
        let again = Alternate::checked("EN", "https://x.org/a").unwrap();
        assert!(!duplicate(links.iter().chain([&again])));
        let other = Alternate::checked("en", "https://x.org/other").unwrap();
        assert!(duplicate(links.iter().chain([&other])));
    }
}
