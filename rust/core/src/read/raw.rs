//! Elements of namespaces urlset does not type, after a urlset entry's core values, kept as
//! the careful lane keeps them (`RawElement`: namespace, local name, the element serialised on
//! its own) by the compiled scanner, so that a sitemap with such elements stays in the
//! scanner's runs instead of sending each entry to lxml.
//!
//! The careful lane serialises a copy of the element (src/urlset/reading/xml_elements.py
//! `_serialise`: lxml's deep copy, `cleanup_namespaces`, `tostring`). What that gives is
//! written here from the same rules: the copy declares, on its top element and in the order
//! they are first needed (each element's name, then its attributes', in document order), the
//! prefixes it uses that were declared outside it; its own declarations stay where they are
//! unless nothing uses them; an element without content is written `<p:x/>`; comments are
//! dropped; text is escaped `&amp;` `&lt;` `&gt;`, attribute values `&amp;` `&lt;` `&gt;`
//! `&quot;` (their tabs and line feeds read as spaces, as a parser normalises them); CDATA
//! sections are text. Plain is what this covers exactly: ASCII names with at most one prefix
//! (`xml:` attributes too), each prefix declared, the five predefined entities and no other
//! reference, no carriage return, processing instruction or DOCTYPE, no `xmlns=""`, no
//! attribute twice, texts and values within the value limit, nesting within `levels`.
//! Anything else is left to lxml as before (tests/test_read_shapes.py holds the two alike).

use std::borrow::Cow;
use std::cell::RefCell;
use std::sync::Arc;

use super::records::{CDATA_END, COMMENT_DASHES};
use super::values::value_text;

pub const SITEMAP_NS: &str = "http://www.sitemaps.org/schemas/sitemap/0.9";
const XML_NS: &str = "http://www.w3.org/XML/1998/namespace";
/// The namespaces urlset reads itself: the protocol's and the typed extensions'
/// (extensions.PREFIXES).
const KNOWN: [&str; 5] = [
    SITEMAP_NS,
    "http://www.google.com/schemas/sitemap-image/1.1",
    "http://www.google.com/schemas/sitemap-video/1.1",
    "http://www.google.com/schemas/sitemap-news/0.9",
    "http://www.w3.org/1999/xhtml",
];

/// An element of another namespace, as `model.RawElement` holds it: its name, shared (a
/// sitemap's entries repeat a few elements, each name made once: [`element_name`]), and the
/// element serialised on its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Raw {
    pub element: Arc<ElementName>,
    pub xml: Xml,
}

/// A raw element serialised, as the careful lane writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Xml {
    /// Written the simplest way, `<p:name>text</p:name>`, its text (`data[a..b]`) as written
    /// being as the copy writes it (no reference, no `>`): the element is its name's start
    /// tag ([`ElementName::open`]), the text and the end tag; `<p:name .../>` when empty. No
    /// text made for it.
    Text(usize, usize),
    /// The element as the copy writes it.
    Written(String),
}

impl Raw {
    /// The element serialised (`data`: the text it was read from).
    pub fn xml<'a>(&'a self, data: &'a [u8]) -> Cow<'a, str> {
        match &self.xml {
            Xml::Written(xml) => xml.as_str().into(),
            &Xml::Text(a, b) => {
                let e = &self.element;
                let text = std::str::from_utf8(&data[a..b]).unwrap_or_default();
                if text.is_empty() {
                    format!("{}/>", e.open).into()
                } else {
                    format!("{}>{text}</{}>", e.open, e.qname).into()
                }
            }
        }
    }
}

/// An element name of a namespace urlset does not read, made once ([`element_name`]): its
/// namespace and local name, and its start tag written the simplest way.
#[derive(Debug, PartialEq, Eq)]
pub struct ElementName {
    pub namespace: String,
    pub name: String,
    /// As written, `p:name` (ASCII).
    pub qname: String,
    /// `<p:name xmlns:p="..."`: the start tag of [`Xml::Text`], its `>` left off.
    pub open: String,
    /// What the JSON writer makes of it once (json.rs `raw_json`).
    pub json: std::sync::OnceLock<RawJson>,
}

/// The JSON of a raw element of one name, as far as the name gives it.
#[derive(Debug, PartialEq, Eq)]
pub struct RawJson {
    /// Up to its xml's text in the simplest form (`{"namespace":..,"xml":"<p:x xmlns:p=..>`;
    /// an empty element's, `/>`, in place of its `>`).
    pub head: Vec<u8>,
    /// Where the xml begins in `head`.
    pub keys: usize,
    /// The simplest form's end (`</p:x>"}`).
    pub end: Vec<u8>,
}

/// A record's elements of other namespaces in document order: the first in place (most
/// records hold one: no vector made for it), the rest after it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Raws {
    first: Option<Raw>,
    rest: Vec<Raw>,
}

impl Raws {
    pub fn push(&mut self, raw: Raw) {
        if self.first.is_none() {
            self.first = Some(raw);
        } else {
            self.rest.push(raw);
        }
    }

    pub fn clear(&mut self) {
        self.first = None;
        self.rest.clear();
    }

    pub fn len(&self) -> usize {
        usize::from(self.first.is_some()) + self.rest.len()
    }

    pub fn is_empty(&self) -> bool {
        self.first.is_none()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Raw> {
        self.first.iter().chain(&self.rest)
    }
}

/// What the root start tag declares (prefix, URI; the empty prefix is the default
/// namespace, the protocol's when the root does not say), and how many levels of elements a
/// raw element may hold (itself included) within `ReadLimits.max_depth`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RootScope {
    pub bindings: Vec<(Vec<u8>, String)>,
    pub levels: usize,
    /// Elements (namespace, local name) the reader has reported as `unknown-element` once
    /// (it reports each once a document): from now on read here too, with nothing to say.
    pub strays: Vec<(String, String)>,
    /// Whether such an element of the protocol's namespace in an entry is kept raw here too:
    /// not for Arrow columns, whose JSON check and fetch's store read back as build input
    /// (which refuses an extension in the protocol's namespace).
    pub raw_strays: bool,
}

impl RootScope {
    fn lookup(&self, prefix: &[u8]) -> Option<&str> {
        if let Some((_, uri)) = self.bindings.iter().rev().find(|(p, _)| p == prefix) {
            return Some(uri);
        }
        prefix.is_empty().then_some(SITEMAP_NS)
    }
}

/// A namespace declaration of the copy: prefix, URI, and whether a name uses it.
struct Decl {
    prefix: Vec<u8>,
    uri: String,
    used: bool,
}

/// One element of the copy, as parsed (in the order of their start tags).
struct Element {
    qname: Vec<u8>,
    /// Its namespace, once resolved.
    namespace: String,
    parent: Option<usize>,
    decls: Vec<Decl>,
    attributes: Vec<(Vec<u8>, String)>,
    /// What is written between its tags: children (by index) and texts, in order.
    content: Vec<Content>,
}

enum Content {
    Child(usize),
    Text(String),
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// What each byte may be in an ASCII name: [`START`] its first, [`NAME`] any other.
const NAME_BYTES: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        if c.is_ascii_alphabetic() || c == b'_' {
            table[b] = START | NAME;
        } else if c.is_ascii_digit() || c == b'-' || c == b'.' {
            table[b] = NAME;
        }
        b += 1;
    }
    table
};
const START: u8 = 1;
const NAME: u8 = 2;

/// An ASCII name with at most one prefix at `text[pos..]`: its end.
fn qname(text: &[u8], pos: usize) -> Option<usize> {
    // a table look-up a byte: the name of every raw element of every entry is read so
    let part = |at: usize| {
        let first = *text.get(at)?;
        if NAME_BYTES[usize::from(first)] & START == 0 {
            return None;
        }
        let mut end = at + 1;
        while end < text.len() && NAME_BYTES[usize::from(text[end])] & NAME != 0 {
            end += 1;
        }
        Some(end)
    };
    let end = part(pos)?;
    if text.get(end) == Some(&b':') {
        return part(end + 1);
    }
    Some(end)
}

fn split(qname: &[u8]) -> (&[u8], &[u8]) {
    // a name is short: a byte at a time costs less than memchr's set-up
    match qname.iter().position(|&b| b == b':') {
        Some(i) => (&qname[..i], &qname[i + 1..]),
        None => (b"", qname),
    }
}

/// Characters XML allows, in UTF-8, without a carriage return (a parser rewrites it).
fn plain_chars(raw: &[u8]) -> bool {
    std::str::from_utf8(raw).is_ok()
        && !raw.iter().enumerate().any(|(i, &b)| match b {
            b'\t' | b'\n' => false,
            0..=0x1f => true,
            0xEF => matches!(raw[i + 1..], [0xBF, 0xBE | 0xBF, ..]),
            _ => false,
        })
}

/// A namespace URI a parser takes without a word and `tostring` writes back as it is: a
/// scheme, then printable ASCII without quotes, `&`, `<`, `>` or `\`.
fn plain_uri(uri: &str) -> bool {
    let b = uri.as_bytes();
    let scheme = b
        .iter()
        .take_while(|&&c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'))
        .count();
    scheme > 0
        && b[0].is_ascii_alphabetic()
        && b.get(scheme) == Some(&b':')
        && b.iter().all(|&c| {
            c.is_ascii_graphic() && !matches!(c, b'"' | b'\'' | b'&' | b'<' | b'>' | b'\\')
        })
}

/// The parser of one element's markup.
struct Parser<'a> {
    text: &'a [u8],
    pos: usize,
    end: usize,
    max_value: usize,
    elements: Vec<Element>,
}

impl Parser<'_> {
    fn spaces(&mut self) -> bool {
        let from = self.pos;
        while self.pos < self.end && is_space(self.text[self.pos]) {
            self.pos += 1;
        }
        self.pos > from
    }

    fn eat(&mut self, what: &[u8]) -> bool {
        let ok = self.text[self.pos..self.end].starts_with(what);
        if ok {
            self.pos += what.len();
        }
        ok
    }

    /// The element whose `<` the cursor stands on, with its content, read into `elements`.
    fn element(&mut self, parent: Option<usize>, depth: usize, levels: usize) -> Option<()> {
        if depth >= levels || !self.eat(b"<") {
            return None;
        }
        let name_end = qname(&self.text[..self.end], self.pos)?;
        let qname = self.text[self.pos..name_end].to_vec();
        self.pos = name_end;
        let me = self.elements.len();
        self.elements.push(Element {
            qname,
            namespace: String::new(),
            parent,
            decls: Vec::new(),
            attributes: Vec::new(),
            content: Vec::new(),
        });
        loop {
            let spaced = self.spaces();
            if self.eat(b"/>") {
                return Some(());
            }
            if self.eat(b">") {
                break;
            }
            if !spaced {
                return None;
            }
            self.attribute(me)?;
        }
        let mut text = String::new();
        loop {
            let from = self.pos;
            let len = memchr::memchr(b'<', &self.text[from..self.end])?;
            if len > 0 {
                text.push_str(&value_text(&self.text[from..from + len], self.max_value)?);
            }
            self.pos = from + len;
            if self.eat(b"<![CDATA[") {
                let start = self.pos;
                let len = CDATA_END.find(&self.text[start..self.end])?;
                let raw = &self.text[start..start + len];
                // an empty section, or one a parser rewrites: left to it
                if raw.is_empty() || !plain_chars(raw) {
                    return None;
                }
                text.push_str(std::str::from_utf8(raw).ok()?);
                self.pos = start + len + 3;
            } else if self.eat(b"<!--") {
                // comments are dropped (SAFE_PARSER_OPTIONS' remove_comments)
                let start = self.pos;
                let len = COMMENT_DASHES.find(&self.text[start..self.end])?;
                self.pos = start + len;
                if !self.eat(b"-->") || !plain_chars(&self.text[start..start + len]) {
                    return None;
                }
            } else if self.eat(b"</") {
                let name = &self.elements[me].qname;
                if !self.text[self.pos..self.end].starts_with(name) {
                    return None;
                }
                self.pos += name.len();
                self.spaces();
                if !self.eat(b">") {
                    return None;
                }
                if !text.is_empty() {
                    self.elements[me].content.push(Content::Text(text));
                }
                return Some(());
            } else {
                if !text.is_empty() {
                    self.elements[me]
                        .content
                        .push(Content::Text(std::mem::take(&mut text)));
                }
                let child = self.elements.len();
                self.element(Some(me), depth + 1, levels)?;
                self.elements[me].content.push(Content::Child(child));
            }
            if text.len() > self.max_value {
                return None;
            }
        }
    }

    /// One attribute or namespace declaration of element `me`, the cursor on its name.
    fn attribute(&mut self, me: usize) -> Option<()> {
        let end = qname(&self.text[..self.end], self.pos)?;
        let attribute = self.text[self.pos..end].to_vec();
        self.pos = end;
        self.spaces();
        if !self.eat(b"=") {
            return None;
        }
        self.spaces();
        let value = self.attribute_value()?;
        let (prefix, local) = split(&attribute);
        let declared = if attribute == b"xmlns" {
            Some(Vec::new())
        } else if prefix == b"xmlns" {
            Some(local.to_vec())
        } else {
            None
        };
        let element = &mut self.elements[me];
        if let Some(prefix) = declared {
            let reserved = prefix.len() >= 3 && prefix[..3].eq_ignore_ascii_case(b"xml");
            if reserved || !plain_uri(&value) || element.decls.iter().any(|d| d.prefix == prefix) {
                return None;
            }
            element.decls.push(Decl {
                prefix,
                uri: value,
                used: false,
            });
        } else {
            if element.attributes.iter().any(|(a, _)| *a == attribute) {
                return None;
            }
            element.attributes.push((attribute, value));
        }
        Some(())
    }

    /// A quoted attribute value as a parser gives it: entities replaced, tabs and line feeds
    /// read as spaces.
    fn attribute_value(&mut self) -> Option<String> {
        let quote = *self.text[..self.end].get(self.pos)?;
        if quote != b'"' && quote != b'\'' {
            return None;
        }
        let start = self.pos + 1;
        let len = memchr::memchr2(quote, b'<', &self.text[start..self.end])?;
        if self.text[start + len] != quote {
            return None;
        }
        self.pos = start + len + 1;
        let value = value_text(&self.text[start..start + len], self.max_value)?;
        Some(value.replace(['\t', '\n'], " "))
    }
}

/// The protocol's names, which the reader reads or reports in their own ways.
const PROTOCOL_NAMES: [&str; 8] = [
    "urlset",
    "sitemapindex",
    "url",
    "sitemap",
    "loc",
    "lastmod",
    "changefreq",
    "priority",
];

/// The URI `prefix` names on element `at` of the copy, marked used there, or declared on the
/// top element (first, from the root's scope) when nothing inside declares it.
fn resolve(elements: &mut [Element], at: usize, prefix: &[u8], root: &RootScope) -> Option<String> {
    let mut node = Some(at);
    while let Some(i) = node {
        if let Some(decl) = elements[i].decls.iter_mut().find(|d| d.prefix == prefix) {
            decl.used = true;
            return Some(decl.uri.clone());
        }
        node = elements[i].parent;
    }
    // the root's declaration, as `tostring` writes it again: only a plain one
    let uri = root.lookup(prefix).filter(|uri| plain_uri(uri))?.to_owned();
    elements[0].decls.push(Decl {
        prefix: prefix.to_vec(),
        uri: uri.clone(),
        used: true,
    });
    Some(uri)
}

fn write_escaped(text: &str, attribute: bool, out: &mut String) {
    // the characters escaped are ASCII: the text between them is copied a run at a time
    let mut start = 0;
    for (i, &b) in text.as_bytes().iter().enumerate() {
        let escaped = match b {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' if attribute => "&quot;",
            _ => continue,
        };
        out.push_str(&text[start..i]);
        out.push_str(escaped);
        start = i + 1;
    }
    out.push_str(&text[start..]);
}

fn write(elements: &[Element], at: usize, out: &mut String) {
    let e = &elements[at];
    let name = std::str::from_utf8(&e.qname).unwrap_or_default();
    out.push('<');
    out.push_str(name);
    for d in e.decls.iter().filter(|d| d.used) {
        out.push_str(" xmlns");
        if !d.prefix.is_empty() {
            out.push(':');
            out.push_str(std::str::from_utf8(&d.prefix).unwrap_or_default());
        }
        out.push_str("=\"");
        out.push_str(&d.uri);
        out.push('"');
    }
    for (attribute, value) in &e.attributes {
        out.push(' ');
        out.push_str(std::str::from_utf8(attribute).unwrap_or_default());
        out.push_str("=\"");
        write_escaped(value, true, out);
        out.push('"');
    }
    if e.content.is_empty() {
        out.push_str("/>");
        return;
    }
    out.push('>');
    for part in &e.content {
        match part {
            Content::Child(child) => write(elements, *child, out),
            Content::Text(text) => write_escaped(text, false, out),
        }
    }
    out.push_str("</");
    out.push_str(name);
    out.push('>');
}

/// The element at `text[pos..end]` (its `<`), a child of `<url>`, when it is a plain element
/// of a namespace urlset does not read itself, or one the reader reported already
/// (`RootScope::strays`): it as the careful lane keeps it, and where it ends. `recent`: the
/// name of the element of this form read last in the same root scope (kept there for the
/// next).
pub fn raw_at(
    text: &[u8],
    (pos, end): (usize, usize),
    (root, recent): (&RootScope, &mut Option<Arc<ElementName>>),
    max_value: usize,
) -> Option<(Raw, usize)> {
    if let Some(found) = simple_raw(text, (pos, end), (root, recent), max_value) {
        return Some(found);
    }
    let (elements, after, namespace) = parsed(text, (pos, end), root, max_value, 0)?;
    let element = element_name(&elements[0].qname, &namespace, root)?;
    let mut xml = String::with_capacity(after - pos + 64);
    write(&elements, 0, &mut xml);
    Some((
        Raw {
            element,
            xml: Xml::Written(xml),
        },
        after,
    ))
}

/// How many element names [`element_name`] keeps: a sitemap's entries hold a few.
const NAMES_KEPT: usize = 16;

thread_local! {
    /// The element names [`element_name`] made last (of namespaces urlset does not read,
    /// whose answer depends on the name and its namespace alone), the newest last.
    static NAMES: RefCell<Vec<Arc<ElementName>>> = const { RefCell::new(Vec::new()) };
}

/// The name of an element `qname` of `namespace` kept raw, made once while it recurs; None
/// for an element the reader judges (of a namespace it reads, unless reported already, and
/// then not of the protocol's namespace for Arrow columns: `RootScope::raw_strays`).
fn element_name(qname: &[u8], namespace: &str, root: &RootScope) -> Option<Arc<ElementName>> {
    let found = NAMES.with_borrow(|names| {
        names
            .iter()
            .rev()
            .find(|n| n.qname.as_bytes() == qname && n.namespace == namespace)
            .cloned()
    });
    if found.is_some() {
        return found;
    }
    let (prefix, local) = split(qname);
    // a qname is ASCII
    let (qname, prefix, name) = (
        std::str::from_utf8(qname).ok()?,
        std::str::from_utf8(prefix).ok()?,
        std::str::from_utf8(local).ok()?,
    );
    let known = KNOWN.contains(&namespace);
    let kept = reported(root, namespace, name) && (root.raw_strays || namespace != SITEMAP_NS);
    // a namespace declared on the root is written into the start tag: only a plain one
    if namespace == XML_NS || (known && !kept) || !plain_uri(namespace) {
        return None;
    }
    let colon = if prefix.is_empty() { "" } else { ":" };
    let element = Arc::new(ElementName {
        namespace: namespace.to_owned(),
        name: name.to_owned(),
        qname: qname.to_owned(),
        open: format!("<{qname} xmlns{colon}{prefix}=\"{namespace}\""),
        json: std::sync::OnceLock::new(),
    });
    // a reported name's answer may change with what the reader reports: made each time
    if !known {
        NAMES.with_borrow_mut(|names| {
            if names.len() >= NAMES_KEPT {
                names.remove(0);
            }
            names.push(Arc::clone(&element));
        });
    }
    Some(element)
}

/// [`raw_at`] of an element written the simplest way, `<p:name>text</p:name>` (no
/// attribute, no markup inside, the prefix the root's): what the parse and [`write`] would
/// give, made without them (an element each on many entries is the common shape). None for
/// any other shape, or where the parse finds fault: the parse then decides.
fn simple_raw(
    text: &[u8],
    (pos, end): (usize, usize),
    (root, recent): (&RootScope, &mut Option<Arc<ElementName>>),
    max_value: usize,
) -> Option<(Raw, usize)> {
    let t = &text[..end];
    if root.levels == 0 || t.get(pos) != Some(&b'<') {
        return None;
    }
    // the name read last again (a sitemap's entries repeat their elements): the root scope
    // is the same, and so are its namespace and answer
    let again = recent
        .as_ref()
        .filter(|e| {
            let name = e.qname.as_bytes();
            t[pos + 1..].starts_with(name) && t.get(pos + 1 + name.len()) == Some(&b'>')
        })
        .cloned();
    let name_end = match &again {
        Some(e) => pos + 1 + e.qname.len(),
        None => qname(t, pos + 1).filter(|&n| t.get(n) == Some(&b'>'))?,
    };
    let qname = &t[pos + 1..name_end];
    let start = name_end + 1;
    let close = start + memchr::memchr(b'<', &t[start..])?;
    let after = close + qname.len() + 3;
    let closed = t[close..].starts_with(b"</")
        && t[close + 2..].starts_with(qname)
        && t.get(after - 1) == Some(&b'>');
    if !closed {
        return None;
    }
    let written = &t[start..close];
    // no reference and no '>': the text is written back as written; a short one of printable
    // ASCII but those and `]` (a rating, a count) is so without the value's pass
    let verbatim = if written.len() <= SHORT.min(max_value) && written.iter().all(short_as_is) {
        true
    } else {
        let value = super::values::value_str(written, max_value)?;
        matches!(value, Cow::Borrowed(_)) && !written.contains(&b'>')
    };
    let element = match again {
        Some(element) => element,
        None => {
            let prefix = split(qname).0;
            if prefix == b"xml" {
                return None;
            }
            let element = element_name(qname, root.lookup(prefix)?, root)?;
            *recent = Some(Arc::clone(&element));
            element
        }
    };
    let xml = if verbatim {
        Xml::Text(start, close)
    } else {
        let value = super::values::value_str(written, max_value)?;
        let mut xml = String::with_capacity(element.open.len() + qname.len() + value.len() + 5);
        xml.push_str(&element.open);
        xml.push('>');
        write_escaped(&value, false, &mut xml);
        xml.push_str("</");
        xml.push_str(&element.qname);
        xml.push('>');
        Xml::Written(xml)
    };
    Some((Raw { element, xml }, after))
}

/// The longest text [`simple_raw`] looks at a byte at a time.
const SHORT: usize = 16;

/// A byte of a short text that [`simple_raw`] writes back as written: printable ASCII but
/// `&` (a reference), `]` (of `]]>`) and `>` (escaped when written again).
fn short_as_is(b: &u8) -> bool {
    matches!(b, b' '..=b'~') && !matches!(b, b'&' | b']' | b'>')
}

/// Whether the reader reported the element (`namespace`, `name`) once already, so that it
/// has nothing more to say about it.
fn reported(root: &RootScope, namespace: &str, name: &str) -> bool {
    !(namespace == SITEMAP_NS && PROTOCOL_NAMES.contains(&name))
        && root.strays.iter().any(|(n, l)| n == namespace && l == name)
}

/// An element at the urlset's level (`text[pos..end]`, its `<`) the reader reported once
/// already and drops (`RootScope::strays`), plain, holding none of the protocol's elements:
/// where it ends.
// not inlined: rare (an element the reader reported, at the urlset's level), and inlined it
// weighed on the entry loop of every record (plain 50k: +0.45M instructions)
#[inline(never)]
pub fn stray_at(
    text: &[u8],
    (pos, end): (usize, usize),
    root: &RootScope,
    max_value: usize,
) -> Option<usize> {
    if root.strays.is_empty() {
        return None;
    }
    let (elements, after, namespace) = parsed(text, (pos, end), root, max_value, 1)?;
    let name = std::str::from_utf8(split(&elements[0].qname).1).ok()?;
    let protocol = |e: &Element| {
        e.namespace == SITEMAP_NS
            && PROTOCOL_NAMES.contains(&std::str::from_utf8(split(&e.qname).1).unwrap_or(""))
    };
    (reported(root, &namespace, name) && !elements[1..].iter().any(protocol)).then_some(after)
}

/// The element at `text[pos..end]` parsed and its names resolved (`above`: levels of the
/// document above a child of `<url>`): its elements, where it ends, its namespace.
fn parsed(
    text: &[u8],
    (pos, end): (usize, usize),
    root: &RootScope,
    max_value: usize,
    above: usize,
) -> Option<(Vec<Element>, usize, String)> {
    let mut parser = Parser {
        text,
        pos,
        end,
        max_value,
        elements: Vec::new(),
    };
    parser.element(None, 0, root.levels.saturating_sub(above))?;
    let after = parser.pos;
    let mut elements = parser.elements;
    let mut namespace = String::new();
    for at in 0..elements.len() {
        let (prefix, _) = split(&elements[at].qname);
        if prefix == b"xml" {
            return None;
        }
        let prefix = prefix.to_vec();
        let uri = resolve(&mut elements, at, &prefix, root)?;
        if at == 0 {
            namespace.clone_from(&uri);
        }
        elements[at].namespace = uri;
        let prefixes: Vec<Vec<u8>> = elements[at]
            .attributes
            .iter()
            .map(|(a, _)| split(a).0.to_vec())
            .collect();
        for prefix in prefixes {
            if !prefix.is_empty() && prefix != b"xml" {
                resolve(&mut elements, at, &prefix, root)?;
            }
        }
    }
    (namespace != XML_NS).then_some((elements, after, namespace))
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn scope() -> RootScope {
        RootScope {
            bindings: vec![
                (b"other".to_vec(), "https://other.example/ns".to_owned()),
                (b"o2".to_vec(), "urn:o2".to_owned()),
                (
                    b"image".to_vec(),
                    "http://www.google.com/schemas/sitemap-image/1.1".to_owned(),
                ),
            ],
            levels: 30,
            strays: Vec::new(),
            raw_strays: true,
        }
    }

    /// The element at the start of `text` read raw: its namespace, name and xml.
    fn raw(text: &str) -> Option<(String, String, String)> {
        raw_at(
            text.as_bytes(),
            (0, text.len()),
            (&scope(), &mut None),
            1 << 20,
        )
        .map(|(r, end)| {
            assert_eq!(end, text.len());
            let e = &r.element;
            let xml = r.xml(text.as_bytes()).into_owned();
            (e.namespace.clone(), e.name.clone(), xml)
        })
    }

    // each expected text is what lxml's deep copy, cleanup_namespaces and tostring give
    #[test]
    fn elements_of_other_namespaces_as_lxml_writes_them_alone() {
        let ns = r#"xmlns:other="https://other.example/ns""#;
        for (written, kept) in [
            ("<other:r>3</other:r>", format!("<other:r {ns}>3</other:r>")),
            (
                r#"<other:r a='x"y' b="1&amp;&lt;&gt;2">3</other:r>"#,
                format!(r#"<other:r {ns} a="x&quot;y" b="1&amp;&lt;&gt;2">3</other:r>"#),
            ),
            (
                "<other:r><o2:x>1</o2:x></other:r>",
                format!(r#"<other:r {ns} xmlns:o2="urn:o2"><o2:x>1</o2:x></other:r>"#),
            ),
            (
                "<other:r><x>1</x></other:r>",
                format!(r#"<other:r {ns} xmlns="{SITEMAP_NS}"><x>1</x></other:r>"#),
            ),
            (
                r#"<other:r other:a="1" o2:b="2"/>"#,
                format!(r#"<other:r {ns} xmlns:o2="urn:o2" other:a="1" o2:b="2"/>"#),
            ),
            ("<other:r></other:r>", format!("<other:r {ns}/>")),
            (
                "<other:r>a&gt;b>c<![CDATA[<d>]]><!-- e -->\n</other:r >",
                format!("<other:r {ns}>a&gt;b&gt;c&lt;d&gt;\n</other:r>"),
            ),
            (
                r#"<x:r xmlns:x="urn:x" xmlns:y="urn:y">1</x:r>"#,
                r#"<x:r xmlns:x="urn:x">1</x:r>"#.to_owned(),
            ),
            (
                r#"<r xmlns="urn:x"><s>1</s></r>"#,
                r#"<r xmlns="urn:x"><s>1</s></r>"#.to_owned(),
            ),
            (
                "<other:r a=\"x\ty\nz\" xml:lang=\"en\">1</other:r>",
                format!(r#"<other:r {ns} a="x y z" xml:lang="en">1</other:r>"#),
            ),
        ] {
            let found = raw(written).unwrap_or_else(|| panic!("{written}"));
            assert_eq!(found.2, kept, "{written}");
        }
        let (namespace, name, _) = raw(r#"<r xmlns="urn:x"/>"#).unwrap();
        assert_eq!((&*namespace, &*name), ("urn:x", "r"));
    }

    #[test]
    fn anything_else_is_left_to_lxml() {
        for odd in [
            "<foo>1</foo>",             // the protocol's namespace: reported
            "<image:foo>1</image:foo>", // a typed extension's
            "<zz:r>1</zz:r>",           // an undeclared prefix
            "<other:r>&#1;</other:r>",
            "<other:r>a]]>b</other:r>",
            "<other:r><?pi x?></other:r>",
            r#"<other:r a="1" a="2"/>"#,
            r#"<other:r xmlns="">1</other:r>"#,
            "<other:r>\r\n</other:r>",
            r#"<other:r xmlns:q="relative">1</other:r>"#,
            "<other:r><![CDATA[]]></other:r>",
            "<other:r>1</other:s>",
            "<other:r>1",
            "<other:r\u{e9}>1</other:r\u{e9}>",
        ] {
            assert_eq!(raw(odd), None, "{odd}");
        }
        // a character reference is read as its character, as the parse reads it
        let written = "<other:r xmlns:other=\"https://other.example/ns\">A\u{2019}</other:r>";
        assert_eq!(
            raw("<other:r>&#65;&#8217;</other:r>"),
            Some((
                "https://other.example/ns".into(),
                "r".into(),
                written.into()
            ))
        );
        // a prefix the root binds to a URI `tostring` writes otherwise (escaped)
        let odd = RootScope {
            bindings: vec![(b"q".to_vec(), "&//x.test/ns".to_owned())],
            ..scope()
        };
        for xml in [
            "<q:r>1</q:r>",
            "<q:r a=\"1\">1</q:r>",
            "<other:r><q:s/></other:r>",
        ] {
            assert!(
                raw_at(xml.as_bytes(), (0, xml.len()), (&odd, &mut None), 99).is_none(),
                "{xml}"
            );
        }
        let deep = "<other:a><other:b><other:c/></other:b></other:a>";
        let shallow = RootScope {
            levels: 2,
            ..scope()
        };
        assert!(raw_at(deep.as_bytes(), (0, deep.len()), (&shallow, &mut None), 99).is_none());
        assert!(raw(deep).is_some());
    }

    #[test]
    fn elements_reported_once_are_read_after() {
        let mut root = scope();
        let foo = "<foo>1</foo>";
        assert!(raw_at(foo.as_bytes(), (0, foo.len()), (&root, &mut None), 99).is_none());
        assert_eq!(stray_at(b"<other:r/>", (0, 10), &root, 99), None);
        root.strays.push((SITEMAP_NS.to_owned(), "foo".to_owned()));
        root.strays
            .push(("https://other.example/ns".to_owned(), "r".to_owned()));
        let (r, _) = raw_at(foo.as_bytes(), (0, foo.len()), (&root, &mut None), 99).unwrap();
        assert_eq!(
            r.xml(foo.as_bytes()),
            format!(r#"<foo xmlns="{SITEMAP_NS}">1</foo>"#)
        );
        assert_eq!(stray_at(b"<other:r/>", (0, 10), &root, 99), Some(10));
        // never the protocol's own names, nor a stray that holds them
        root.strays.push((SITEMAP_NS.to_owned(), "loc".to_owned()));
        let loc = "<loc>x</loc>";
        assert!(raw_at(loc.as_bytes(), (0, loc.len()), (&root, &mut None), 99).is_none());
        let holds = "<other:r><url/></other:r>";
        assert_eq!(
            stray_at(holds.as_bytes(), (0, holds.len()), &root, 99),
            None
        );
    }
}

#[cfg(test)]
mod simple_tests {
    use super::tests::scope;
    use super::*;

    #[test]
    fn names_are_made_once_while_they_recur() {
        let root = scope();
        let at = |xml: &str| {
            simple_raw(xml.as_bytes(), (0, xml.len()), (&root, &mut None), 100)
                .unwrap()
                .0
        };
        let (a, b) = (at("<other:r>1</other:r>"), at("<other:r>2</other:r>"));
        assert!(Arc::ptr_eq(&a.element, &b.element));
        // more names than are kept, twice over: each as made afresh
        let ns = r#" xmlns:other="https://other.example/ns""#;
        for i in (0..2 * NAMES_KEPT).chain(0..2 * NAMES_KEPT) {
            let xml = format!("<other:n{i}>{i}</other:n{i}>");
            let r = at(&xml);
            assert_eq!(
                (&*r.element.namespace, &*r.element.name),
                (&*a.element.namespace, &*format!("n{i}"))
            );
            assert_eq!(
                r.xml(xml.as_bytes()),
                xml.replacen('>', &format!("{ns}>"), 1)
            );
        }
        // the text copied as written, or written again
        assert!(matches!(
            at("<other:r>\t\"'\n\u{e9}</other:r>").xml,
            Xml::Text(..)
        ));
        for xml in ["<other:r>a>b</other:r>", "<other:r>a&amp;b</other:r>"] {
            assert!(matches!(at(xml).xml, Xml::Written(_)), "{xml}");
        }
        // a record's raw elements in document order (written again: no span to read back)
        let mut raws = Raws::default();
        assert!(raws.is_empty());
        for i in 1..=3 {
            raws.push(at(&format!("<other:r>{i}&gt;</other:r>")));
        }
        let texts: Vec<_> = raws.iter().map(|r| r.xml(b"").into_owned()).collect();
        assert_eq!(raws.len(), 3);
        assert_eq!(
            texts,
            [1, 2, 3].map(|i| format!("<other:r{ns}>{i}&gt;</other:r>"))
        );
    }

    #[test]
    fn the_simplest_form_is_written_as_the_parse_writes_it() {
        let root = scope();
        for xml in [
            "<other:r>1</other:r>",
            "<other:r></other:r>",
            "<o2:x>a&amp;b&lt;&gt;\"'\u{e9} \t\n</o2:x>",
            "<o2:x>a>b\"\\</o2:x>",
            "<other:r>1</other:r>   ",
            // short texts, looked at a byte at a time, and the first longer one
            "<other:r>0123456789abcdef</other:r>",
            "<other:r>0123456789abcdefg</other:r>",
            "<other:r>a]b]]c</other:r>",
            "<other:r>\"' ~</other:r>",
            "<other:r>\t\n</other:r>",
            "<other:r>\u{7f}</other:r>",
            "<other:r>a&gt;</other:r>",
            "<other:r>\u{e9}</other:r>",
        ] {
            let text = xml.as_bytes();
            let span = (0, text.len());
            let (fast, after) = simple_raw(text, span, (&root, &mut None), 100).expect(xml);
            let (elements, parsed_after, namespace) = parsed(text, span, &root, 100, 0).unwrap();
            let mut written = String::new();
            write(&elements, 0, &mut written);
            assert_eq!(after, parsed_after, "{xml}");
            assert_eq!(fast.element.namespace, namespace, "{xml}");
            assert_eq!(
                fast.element.name,
                std::str::from_utf8(split(&elements[0].qname).1).unwrap()
            );
            assert_eq!(fast.xml(text), written, "{xml}");
        }
        // a text longer than the value limit, short or not, is the parse's to refuse
        for (xml, max) in [
            ("<other:r>12345</other:r>", 4),
            ("<other:r>12345</other:r>", 5),
            ("<other:r>0123456789abcdefg</other:r>", 16),
            ("<other:r>0123456789abcdefg</other:r>", 17),
        ] {
            let text = xml.as_bytes();
            let span = (0, text.len());
            let fast = simple_raw(text, span, (&root, &mut None), max);
            assert_eq!(fast.is_some(), max >= 5 && max != 16, "{xml} {max}");
            assert_eq!(parsed(text, span, &root, max, 0).is_some(), fast.is_some());
        }
        // one after another, the name read last kept: each name's answer as on its own
        let mut recent = None;
        for (xml, raws) in [
            ("<other:r>1</other:r>", true),
            ("<other:r>2</other:r>", true),
            ("<o2:r>3</o2:r>", true),
            ("<image:r>1</image:r>", false),
            ("<other:s>4</other:s>", true),
            ("<xml:r>1</xml:r>", false),
            ("<other:s></other:s>", true),
            ("<other:ss>5</other:ss>", true),
            ("<other:s>6</other:ss>", false),
            ("<other:ss>7</other:s>", false),
            ("<other:ss a=\"1\">8</other:ss>", false),
            ("<other:ss>&#1;</other:ss>", false),
            ("<other:ss>9&gt;</other:ss>", true),
        ] {
            let text = xml.as_bytes();
            let span = (0, text.len());
            let fast = simple_raw(text, span, (&root, &mut recent), 100);
            assert_eq!(fast.is_some(), raws, "{xml}");
            if let Some((fast, _)) = fast {
                let (elements, _, namespace) = parsed(text, span, &root, 100, 0).unwrap();
                let mut written = String::new();
                write(&elements, 0, &mut written);
                let found = (&*fast.element.namespace, fast.xml(text));
                assert_eq!(found, (&*namespace, written.into()));
            }
        }
        // every other form is the parse's to judge, whichever name was read last
        let mut recent = None;
        let r = b"<other:r>1</other:r>";
        simple_raw(r, (0, r.len()), (&root, &mut recent), 100).unwrap();
        for xml in [
            "<other:r a=\"1\">1</other:r>",
            "<other:r>1</other:r >",
            "<other:r>1</other:rr>",
            "<other:r><o2:x/></other:r>",
            "<zz:r>1</zz:r>",
            "<xml:r>1</xml:r>",
            "<image:r>1</image:r>",
            "<r>the protocol's</r>",
            "<other:r>&#1;</other:r>",
        ] {
            let text = xml.as_bytes();
            for recent in [None, recent.clone()] {
                let mut recent = recent;
                let fast = simple_raw(text, (0, text.len()), (&root, &mut recent), 100);
                assert!(fast.is_none(), "{xml}");
            }
        }
    }
}
