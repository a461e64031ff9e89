//! The MLIR token lexer. It is lazy: the parser asks for one token at a time and may
//! rewind, and a few grammar corners (dimension lists, dialect bodies) scan bytes directly.

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TokenKind {
    Eof,
    /// A character that starts no token, or an unterminated string.
    Error,
    BareIdent,
    /// `@name` or `@"name"`.
    AtIdent,
    /// `%name`
    PercentIdent,
    /// `^name`
    CaretIdent,
    /// `#name`
    HashIdent,
    /// `!name`
    ExclaimIdent,
    Integer,
    Float,
    String,
    LParen,
    RParen,
    LSquare,
    RSquare,
    LBrace,
    RBrace,
    Less,
    Greater,
    Comma,
    Colon,
    Equal,
    Arrow,
    Question,
    Star,
    Plus,
    Minus,
    Ellipsis,
    /// `{-#`
    FileMetadataBegin,
    /// `#-}`
    FileMetadataEnd,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Token {
    pub kind: TokenKind,
    pub start: usize,
    pub end: usize,
}

fn is_bare_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_bare_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.')
}

fn is_suffix_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.' | b'-')
}

/// Skips whitespace and `//` comments starting at `pos`. A NUL byte between tokens is
/// skipped too, as MLIR does.
pub fn skip_trivia(src: &[u8], mut pos: usize) -> usize {
    loop {
        while pos < src.len() && (src[pos].is_ascii_whitespace() || src[pos] == 0) {
            pos += 1;
        }
        if src[pos..].starts_with(b"//") {
            while pos < src.len() && src[pos] != b'\n' {
                pos += 1;
            }
            continue;
        }
        return pos;
    }
}

/// Lexes the token starting at or after `pos`.
pub fn lex(src: &[u8], pos: usize) -> Token {
    let start = skip_trivia(src, pos);
    let tok = |kind, end| Token { kind, start, end };
    let Some(&c) = src.get(start) else {
        return tok(TokenKind::Eof, start);
    };
    let at = |i: usize| src.get(start + i).copied().unwrap_or(0);
    match c {
        b'(' => tok(TokenKind::LParen, start + 1),
        b')' => tok(TokenKind::RParen, start + 1),
        b'[' => tok(TokenKind::LSquare, start + 1),
        b']' => tok(TokenKind::RSquare, start + 1),
        b'{' if at(1) == b'-' && at(2) == b'#' => tok(TokenKind::FileMetadataBegin, start + 3),
        b'{' => tok(TokenKind::LBrace, start + 1),
        b'}' => tok(TokenKind::RBrace, start + 1),
        b'<' => tok(TokenKind::Less, start + 1),
        b'>' => tok(TokenKind::Greater, start + 1),
        b',' => tok(TokenKind::Comma, start + 1),
        b':' => tok(TokenKind::Colon, start + 1),
        b'=' => tok(TokenKind::Equal, start + 1),
        b'?' => tok(TokenKind::Question, start + 1),
        b'*' => tok(TokenKind::Star, start + 1),
        b'+' => tok(TokenKind::Plus, start + 1),
        b'-' if at(1) == b'>' => tok(TokenKind::Arrow, start + 2),
        b'-' => tok(TokenKind::Minus, start + 1),
        b'.' if at(1) == b'.' && at(2) == b'.' => tok(TokenKind::Ellipsis, start + 3),
        b'"' => lex_string(src, start),
        b'@' => {
            if at(1) == b'"' {
                let s = lex_string(src, start + 1);
                Token {
                    kind: if s.kind == TokenKind::String {
                        TokenKind::AtIdent
                    } else {
                        TokenKind::Error
                    },
                    start,
                    end: s.end,
                }
            } else if is_bare_start(at(1)) {
                let mut end = start + 2;
                while end < src.len() && is_bare_char(src[end]) {
                    end += 1;
                }
                tok(TokenKind::AtIdent, end)
            } else {
                tok(TokenKind::Error, start + 1)
            }
        }
        b'#' if at(1) == b'-' && at(2) == b'}' => tok(TokenKind::FileMetadataEnd, start + 3),
        b'%' | b'^' | b'#' | b'!' => {
            let kind = match c {
                b'%' => TokenKind::PercentIdent,
                b'^' => TokenKind::CaretIdent,
                b'#' => TokenKind::HashIdent,
                _ => TokenKind::ExclaimIdent,
            };
            let mut end = start + 1;
            if end < src.len() && src[end].is_ascii_digit() {
                while end < src.len() && src[end].is_ascii_digit() {
                    end += 1;
                }
            } else if end < src.len() && is_suffix_char(src[end]) {
                while end < src.len() && is_suffix_char(src[end]) {
                    end += 1;
                }
            } else {
                return tok(TokenKind::Error, start + 1);
            }
            tok(kind, end)
        }
        b'0'..=b'9' => lex_number(src, start),
        c if is_bare_start(c) => {
            let mut end = start + 1;
            while end < src.len() && is_bare_char(src[end]) {
                end += 1;
            }
            tok(TokenKind::BareIdent, end)
        }
        _ => {
            // Step over one whole UTF-8 character so error columns stay sensible.
            let len = std::str::from_utf8(&src[start..])
                .ok()
                .and_then(|s| s.chars().next())
                .map_or(1, char::len_utf8);
            tok(TokenKind::Error, start + len)
        }
    }
}

/// Whether `word` is an integer type (`i32`, `si8`, `ui1`): a token kind of its own in
/// MLIR's lexer, so never an op name or a bare attribute.
pub fn is_integer_type_keyword(word: &str) -> bool {
    let digits = word
        .strip_prefix("si")
        .or_else(|| word.strip_prefix("ui"))
        .or_else(|| word.strip_prefix('i'));
    digits.is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

/// Why the error token starting at `start` is not a token, as MLIR's lexer says it: the
/// offset its error points at and the message.
pub fn error_message(src: &[u8], start: usize) -> (usize, &'static str) {
    let at = |i: usize| src.get(start + i).copied().unwrap_or(0);
    match at(0) {
        b'"' => string_error(src, start),
        b'@' if at(1) == b'"' => string_error(src, start + 1),
        b'@' => (
            start + 1,
            "@ identifier expected to start with letter or '_'",
        ),
        b'#' => (start + 1, "invalid attribute name"),
        b'%' => (start + 1, "invalid SSA name"),
        b'^' => (start + 1, "invalid block name"),
        b'!' => (start + 1, "invalid type identifier"),
        b'.' => (start + 1, "expected three consecutive dots for an ellipsis"),
        _ => (start, "unexpected character"),
    }
}

/// Where and why the string literal starting at `start` (its opening quote) is malformed.
fn string_error(src: &[u8], start: usize) -> (usize, &'static str) {
    let mut i = start + 1;
    while i < src.len() {
        match src[i] {
            b'"' => break,
            b'\n' | b'\r' | 0x0b | 0x0c => return (i, "expected '\"' in string literal"),
            b'\\' => {
                let next = src.get(i + 1).copied().unwrap_or(0);
                let hex = |b: Option<&u8>| b.is_some_and(u8::is_ascii_hexdigit);
                if matches!(next, b'"' | b'\\' | b'n' | b't') {
                    i += 2;
                } else if hex(src.get(i + 1)) && hex(src.get(i + 2)) {
                    i += 3;
                } else {
                    return (i, "unknown escape in string literal");
                }
            }
            _ => i += 1,
        }
    }
    (src.len(), "expected '\"' in string literal")
}

fn lex_number(src: &[u8], start: usize) -> Token {
    let mut end = start;
    if src[start] == b'0'
        && src.get(start + 1) == Some(&b'x')
        && src.get(start + 2).is_some_and(u8::is_ascii_hexdigit)
    {
        end = start + 2;
        while end < src.len() && src[end].is_ascii_hexdigit() {
            end += 1;
        }
        return Token {
            kind: TokenKind::Integer,
            start,
            end,
        };
    }
    while end < src.len() && src[end].is_ascii_digit() {
        end += 1;
    }
    if src.get(end) != Some(&b'.') {
        return Token {
            kind: TokenKind::Integer,
            start,
            end,
        };
    }
    end += 1;
    while end < src.len() && src[end].is_ascii_digit() {
        end += 1;
    }
    if matches!(src.get(end), Some(b'e' | b'E')) {
        let mut e = end + 1;
        if matches!(src.get(e), Some(b'+' | b'-')) {
            e += 1;
        }
        if src.get(e).is_some_and(u8::is_ascii_digit) {
            while e < src.len() && src[e].is_ascii_digit() {
                e += 1;
            }
            end = e;
        }
    }
    Token {
        kind: TokenKind::Float,
        start,
        end,
    }
}

fn lex_string(src: &[u8], start: usize) -> Token {
    let mut end = start + 1;
    while end < src.len() {
        match src[end] {
            b'"' => {
                return Token {
                    kind: TokenKind::String,
                    start,
                    end: end + 1,
                };
            }
            b'\n' | b'\r' => break,
            b'\\' => end += 2,
            _ => end += 1,
        }
    }
    Token {
        kind: TokenKind::Error,
        start,
        end: end.min(src.len()),
    }
}

/// Decodes the body of a string token (without quotes). Returns the bytes or the byte
/// offset (relative to the body) and message of a bad escape.
pub fn unescape(body: &[u8]) -> Result<Vec<u8>, (usize, &'static str)> {
    let mut out = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        if body[i] != b'\\' {
            out.push(body[i]);
            i += 1;
            continue;
        }
        match body.get(i + 1) {
            Some(b'\\') => out.push(b'\\'),
            Some(b'"') => out.push(b'"'),
            Some(b'n') => out.push(b'\n'),
            Some(b't') => out.push(b'\t'),
            Some(&h)
                if h.is_ascii_hexdigit() && body.get(i + 2).is_some_and(u8::is_ascii_hexdigit) =>
            {
                let hex = std::str::from_utf8(&body[i + 1..i + 3]).expect("hex digits are ASCII");
                out.push(u8::from_str_radix(hex, 16).expect("two hex digits"));
                i += 1;
            }
            _ => return Err((i, "unknown escape in string literal")),
        }
        i += 2;
    }
    Ok(out)
}

/// Writes `bytes` as an MLIR string literal with quotes, escaping what must be escaped.
pub fn escape_into(out: &mut String, bytes: &[u8]) {
    // As MLIR: printable ASCII as is, `\\` doubled, everything else (quotes, control
    // characters and every non-ASCII byte) as two hex digits.
    out.push('"');
    for &b in bytes {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'"' => out.push_str("\\22"),
            0x20..=0x7e => out.push(b as char),
            _ => {
                const HEX: &[u8; 16] = b"0123456789ABCDEF";
                out.push('\\');
                out.push(HEX[(b >> 4) as usize] as char);
                out.push(HEX[(b & 15) as usize] as char);
            }
        }
    }
    out.push('"');
}

/// Whether `name` can be printed as a bare identifier (else it needs quotes).
pub fn is_bare_identifier(name: &str) -> bool {
    let b = name.as_bytes();
    !b.is_empty() && is_bare_start(b[0]) && b[1..].iter().all(|&c| is_bare_char(c))
}

/// Whether `name` is a valid suffix id for `%`/`^`/`#`/`!` tokens.
pub fn is_suffix_identifier(name: &str) -> bool {
    let b = name.as_bytes();
    if b.is_empty() {
        return false;
    }
    if b[0].is_ascii_digit() {
        return b.iter().all(u8::is_ascii_digit);
    }
    b.iter().all(|&c| is_suffix_char(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<TokenKind> {
        let mut pos = 0;
        let mut out = vec![];
        loop {
            let t = lex(src.as_bytes(), pos);
            out.push(t.kind);
            if t.kind == TokenKind::Eof {
                return out;
            }
            pos = t.end;
        }
    }

    #[test]
    fn lexes_values_results_and_arrows() {
        use TokenKind::*;
        assert_eq!(
            kinds("%0#1 = \"a.b\"() -> // c\n ^bb1"),
            vec![
                PercentIdent,
                HashIdent,
                Equal,
                String,
                LParen,
                RParen,
                Arrow,
                CaretIdent,
                Eof
            ]
        );
    }

    #[test]
    fn lexes_numbers() {
        use TokenKind::*;
        assert_eq!(
            kinds("1 1.5 2.e3 0x1F 1.0e-7"),
            vec![Integer, Float, Float, Integer, Float, Eof]
        );
    }

    #[test]
    fn unescapes_hex_and_named_escapes() {
        assert_eq!(unescape(br#"a\n\"\\\0A\ff"#).unwrap(), b"a\n\"\\\n\xff");
        assert!(unescape(br"\q").is_err());
    }

    #[test]
    fn unterminated_string_is_an_error_token() {
        assert_eq!(lex(b"\"abc", 0).kind, TokenKind::Error);
    }
}
