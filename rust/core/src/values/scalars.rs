//! The two scalar values of an entry: changefreq, one of seven names, and priority, a decimal
//! from 0.0 to 1.0. The writer takes Python's spellings (trimmed, any case, any float); the
//! reader takes the canonical ones exactly as written, on top of the same checks.

/// The protocol's changefreq values, in urlset.model.ChangeFreq's order.
pub const CHANGEFREQS: [&[u8]; 7] = [
    b"always", b"hourly", b"daily", b"weekly", b"monthly", b"yearly", b"never",
];

/// The reader's question: the index in CHANGEFREQS of an exact changefreq spelling.
pub fn plain_changefreq(text: &[u8]) -> Option<u8> {
    CHANGEFREQS
        .iter()
        .position(|c| *c == text)
        .and_then(|i| u8::try_from(i).ok())
}

/// The reader's question: a priority written `0`, `0.d` to `0.dddd`, `1` or `1.0` to
/// `1.0000` (what `model.check_priority` keeps as written): its value.
pub fn plain_priority(text: &[u8]) -> Option<f64> {
    let (whole, fraction): (u8, &[u8]) = match text {
        [whole @ (b'0' | b'1')] => (*whole, &[]),
        [whole @ (b'0' | b'1'), b'.', fraction @ ..] if (1..=4).contains(&fraction.len()) => {
            (*whole, fraction)
        }
        _ => return None,
    };
    // `Priority::from_decimal`'s sum for these forms, in place (half the entries hold one:
    // its text made a str and split cost ~230 instructions)
    let mut units = u32::from(whole - b'0') * 10_000;
    for (place, &byte) in fraction.iter().enumerate() {
        if !byte.is_ascii_digit() {
            return None;
        }
        units += u32::from(byte - b'0') * [1000, 100, 10, 1][place];
    }
    (units <= 10_000).then(|| Priority(units as u16).value())
}

/// A value's text the core judges as the reader does, beyond the plain forms: printable
/// ASCII without a space at its ends (the reader strips and reports those), `&` or `<` (the
/// text as written is its value).
fn judgeable(text: &[u8]) -> bool {
    let plain = |&b: &u8| (b' '..=b'~').contains(&b) && !matches!(b, b'&' | b'<');
    text.iter().all(plain) && text.first() != Some(&b' ') && text.last() != Some(&b' ')
}

/// The reader's second question, for a changefreq text [`plain_changefreq`] refuses
/// (`Sink.changefreq`): Some(index) for a value in another ASCII case (`changefreq-case`),
/// Some(None) for none (`invalid-changefreq`); None for a text it leaves to the reader (not
/// [`judgeable`]: Python's `lower` maps some other characters to ASCII letters).
pub fn judged_changefreq(text: &[u8]) -> Option<Option<u8>> {
    judgeable(text).then(|| plain_changefreq(&text.to_ascii_lowercase()))
}

/// The reader's second question, for a priority text [`plain_priority`] refuses
/// (`Sink.priority`): Some(value) for one Python's `float` reads from 0 to 1 (read without a
/// word: `.5`, `0.12345`), Some(None) for any other (`invalid-priority`); None for a text it
/// leaves to the reader (not [`judgeable`], or with a `_`, which `float` takes between
/// digits).
pub fn judged_priority(text: &[u8]) -> Option<Option<f64>> {
    if !judgeable(text) || text.contains(&b'_') {
        return None;
    }
    let value = std::str::from_utf8(text).ok()?.parse::<f64>().ok();
    Some(value.filter(|v| (0.0..=1.0).contains(v)))
}

/// The seven <changefreq> values, as `model.check_changefreq` accepts them (any ASCII case,
/// ASCII spaces around); None for anything else.
pub fn changefreq(text: &str) -> Option<&'static str> {
    let trimmed = trim_python_space(text)?.as_bytes();
    CHANGEFREQS
        .into_iter()
        .find(|name| name.eq_ignore_ascii_case(trimmed))
        .map(|name| std::str::from_utf8(name).unwrap_or_default())
}

/// `text` without the ASCII characters Python's `str.strip` removes; None when the text holds
/// other characters (Python strips some of those too: the caller checks such values itself).
pub fn trim_python_space(text: &str) -> Option<&str> {
    if !text.is_ascii() {
        return None;
    }
    let space = |b: &u8| matches!(b, b' ' | b'\t'..=b'\r' | b'\x1c'..=b'\x1f');
    let bytes = text.as_bytes();
    if !bytes.first().is_some_and(space) && !bytes.last().is_some_and(space) {
        return Some(text); // the usual case: nothing to strip
    }
    Some(text.trim_matches(|c: char| matches!(c, ' ' | '\t'..='\r' | '\x1c'..='\x1f')))
}

/// A priority in ten-thousandths (0 to 10,000): what `document.format_priority` keeps of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Priority(u16);

impl Priority {
    /// A float from 0.0 to 1.0, rounded to four places as Python's `f"{p:.4f}"` rounds it (the
    /// exact binary value, ties to even); None for anything else.
    pub fn from_f64(value: f64) -> Option<Priority> {
        if !(0.0..=1.0).contains(&value) {
            return None;
        }
        let text = format!("{value:.4}");
        let (whole, fraction) = text.split_once('.')?;
        let units = whole.parse::<u16>().ok()? * 10_000 + fraction.parse::<u16>().ok()?;
        Some(Priority(units))
    }

    /// A priority from its text as `model.check_priority` reads it, for the plain decimal
    /// spellings (digits with at most one point); None for anything else or out of range.
    /// Up to four decimals are read exactly: the float nearest such a decimal rounds back to it.
    pub fn from_text(text: &str) -> Option<Priority> {
        Priority::from_decimal(trim_python_space(text)?)
    }

    /// [`Priority::from_text`] on a text already trimmed.
    fn from_decimal(trimmed: &str) -> Option<Priority> {
        let (whole, fraction) = trimmed.split_once('.').unwrap_or((trimmed, ""));
        let digits = |part: &str| part.bytes().all(|b| b.is_ascii_digit());
        if whole.len() + fraction.len() == 0 || !digits(whole) || !digits(fraction) {
            return None;
        }
        if fraction.len() > 4 || whole.len() > 4 {
            return Priority::from_f64(trimmed.parse().ok()?);
        }
        let mut units: u32 = whole.bytes().fold(0, |v, b| v * 10 + u32::from(b - b'0')) * 10_000;
        for (place, byte) in fraction.bytes().enumerate() {
            units += u32::from(byte - b'0') * [1000, 100, 10, 1][place];
        }
        (units <= 10_000).then_some(Priority(units as u16))
    }

    /// Its value: the float nearest to its decimal (both operands are exact in an f64, so one
    /// correctly rounded division gives what Python's `float()` gives for the text).
    pub fn value(self) -> f64 {
        f64::from(self.0) / 10_000.0
    }

    /// Append it as `document.format_priority` writes it: one to four decimals.
    pub fn write(self, out: &mut Vec<u8>) {
        out.push(b'0' + (self.0 / 10_000) as u8);
        out.push(b'.');
        let mut fraction = self.0 % 10_000;
        let mut places = 4;
        while places > 1 && fraction.is_multiple_of(10) {
            fraction /= 10;
            places -= 1;
        }
        let mut digits = [b'0'; 4];
        for slot in digits[..places].iter_mut().rev() {
            *slot = b'0' + (fraction % 10) as u8;
            fraction /= 10;
        }
        out.extend_from_slice(&digits[..places]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn priorities_and_changefreqs() {
        assert_eq!(plain_priority(b"0.5"), Some(0.5));
        assert_eq!(plain_priority(b"1"), Some(1.0));
        assert_eq!(plain_priority(b"0.1234"), Some(0.1234));
        for i in 0..10_000 {
            let text = format!("0.{i:04}");
            let parsed: f64 = text.parse().unwrap();
            assert_eq!(plain_priority(text.as_bytes()), Some(parsed), "{text}");
        }
        for bad in ["1.5", "0.12345", "0.", ".5", "-0", " 0.5", "1.01", "01"] {
            assert_eq!(plain_priority(bad.as_bytes()), None, "{bad}");
        }
        assert_eq!(plain_changefreq(b"daily"), Some(2));
        assert_eq!(plain_changefreq(b"Daily"), None);
    }

    #[test]
    fn a_plain_priority_is_its_decimal_read() {
        // every text of up to seven bytes over digits, a point and what is neither: the
        // forms taken give `Priority::from_decimal`'s value, the others none
        let alphabet = b"0159.a ";
        let mut texts: Vec<Vec<u8>> = vec![Vec::new()];
        for _ in 0..7 {
            let longer: Vec<Vec<u8>> = texts
                .iter()
                .filter(|t| t.len() == texts.last().map_or(0, Vec::len))
                .flat_map(|t| alphabet.iter().map(move |&b| [&t[..], &[b]].concat()))
                .collect();
            texts.extend(longer);
        }
        let mut taken = 0;
        for text in &texts {
            let canonical = match &text[..] {
                [b'0' | b'1'] => true,
                [b'0' | b'1', b'.', frac @ ..] => (1..=4).contains(&frac.len()),
                _ => false,
            };
            let want = std::str::from_utf8(text)
                .ok()
                .filter(|_| canonical)
                .and_then(Priority::from_decimal)
                .map(Priority::value);
            assert_eq!(plain_priority(text), want, "{text:?}");
            taken += usize::from(want.is_some());
        }
        assert!(taken > 300, "{taken}");
    }
}
