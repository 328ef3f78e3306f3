//! HTTP/1.x on the wire, without sockets: where a request head ends, what it says (strictly:
//! anything malformed is an error with the status to answer), and the bytes of an answer.
//! The sockets, limits in time and the pools are in [`super::server`]; what to answer is
//! [`super::routes`]' business.

use super::query::MAX_TARGET;

/// Largest request head read (request line and headers).
pub const MAX_HEAD: usize = MAX_TARGET + 16 * 1024;
/// Most header lines in a request.
pub const MAX_HEADERS: usize = 100;
/// Largest request body read (and thrown away: every route is a `GET`).
pub const MAX_BODY: usize = 64 * 1024;

/// A parsed request head.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Head {
    /// The method, as sent (methods are case-sensitive).
    pub method: String,
    /// The request target in origin form (`/path?query`), or `*`.
    pub target: String,
    /// Whether the client asked (or, in HTTP/1.1, did not refuse) to keep the connection.
    pub keep_alive: bool,
    /// HTTP/1.0 (an answer that keeps the connection must then say so).
    pub http10: bool,
    /// `Content-Length` (0 when absent).
    pub content_length: usize,
    /// The authority the client addressed: the host (and port) of an absolute-form target,
    /// else the `Host` header; `None` when neither is given.
    pub host: Option<String>,
}

/// A request the server will not read further: the status to answer, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Malformed {
    /// 400, 411, 413, 414 or 431.
    pub status: u16,
    /// The reason, sent in the JSON error.
    pub message: &'static str,
}

fn bad(message: &'static str) -> Malformed {
    Malformed {
        status: 400,
        message,
    }
}

/// Where the head in `buf` ends (the index after its blank line), if it is complete.
/// `scanned` carries how far earlier calls looked, so that a head arriving byte by byte is
/// scanned once in all.
pub fn head_end(buf: &[u8], scanned: &mut usize) -> Option<usize> {
    let from = scanned.saturating_sub(3);
    *scanned = buf.len();
    for i in memchr::memchr_iter(b'\n', buf.get(from..)?).map(|i| i + from) {
        match buf.get(i + 1..) {
            Some([b'\n', ..]) => return Some(i + 2),
            Some([b'\r', b'\n', ..]) => return Some(i + 3),
            _ => {}
        }
    }
    None
}

/// A token character (RFC 9110 `tchar`): methods and header names.
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// Parses a complete head (as delimited by [`head_end`]).
///
/// # Errors
/// [`Malformed`] for anything that is not a well-formed HTTP/1.0 or 1.1 request head: bytes
/// outside printable ASCII in the request line, another protocol (an HTTP/2 preface), folded
/// or nameless headers, a bad or contradictory `Content-Length`, `Transfer-Encoding`.
pub fn parse(head: &[u8]) -> Result<Head, Malformed> {
    let mut lines = head
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l));
    let request_line = lines.next().unwrap_or_default();
    if request_line.is_empty() {
        return Err(bad("empty request line"));
    }
    if !request_line.iter().all(|&b| (0x20..0x7f).contains(&b)) {
        return Err(bad(
            "the request line must be printable ASCII (percent-encode the rest)",
        ));
    }
    // Printable ASCII only, so the bytes are a str.
    let line = String::from_utf8_lossy(request_line);
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(bad("the request line must be `METHOD TARGET HTTP/1.1`"));
    };
    if method.is_empty() || !method.bytes().all(is_tchar) {
        return Err(bad("bad method"));
    }
    let http10 = match version {
        "HTTP/1.1" => false,
        "HTTP/1.0" => true,
        _ => return Err(bad("only HTTP/1.0 and HTTP/1.1 are served")),
    };
    let authority = absolute_authority(target);
    let target = origin_form(target).ok_or_else(|| bad("bad request target"))?;
    if target.len() > MAX_TARGET {
        return Err(Malformed {
            status: 414,
            message: "request target too long",
        });
    }
    let mut close = false;
    let mut keep = false;
    let mut length: Option<usize> = None;
    let mut host: Option<String> = None;
    let mut count = 0;
    for l in lines.take_while(|l| !l.is_empty()) {
        count += 1;
        if count > MAX_HEADERS {
            return Err(Malformed {
                status: 431,
                message: "too many header lines",
            });
        }
        let colon = l
            .iter()
            .position(|&b| b == b':')
            .ok_or_else(|| bad("a header line without `:`"))?;
        let (name, value) = (&l[..colon], &l[colon + 1..]);
        if name.is_empty() || !name.iter().all(|&b| is_tchar(b)) {
            return Err(bad(
                "bad header name (folded header lines are not accepted)",
            ));
        }
        if value.iter().any(|&b| b != b'\t' && (b < 0x20 || b == 0x7f)) {
            return Err(bad("control character in a header value"));
        }
        let value = value.trim_ascii();
        if name.eq_ignore_ascii_case(b"content-length") {
            let n = std::str::from_utf8(value)
                .ok()
                .filter(|v| !v.is_empty() && v.len() <= 18 && v.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|v| v.parse::<usize>().ok())
                .ok_or_else(|| bad("bad Content-Length"))?;
            if length.is_some_and(|m| m != n) {
                return Err(bad("contradictory Content-Length headers"));
            }
            length = Some(n);
        } else if name.eq_ignore_ascii_case(b"host") {
            if host.is_some() {
                return Err(bad("more than one Host header"));
            }
            host = Some(String::from_utf8_lossy(value).into_owned());
        } else if name.eq_ignore_ascii_case(b"transfer-encoding") {
            return Err(Malformed {
                status: 411,
                message: "request bodies need a Content-Length (no Transfer-Encoding)",
            });
        } else if name.eq_ignore_ascii_case(b"connection") {
            for token in value.split(|&b| b == b',').map(<[u8]>::trim_ascii) {
                close |= token.eq_ignore_ascii_case(b"close");
                keep |= token.eq_ignore_ascii_case(b"keep-alive");
            }
        }
    }
    let content_length = length.unwrap_or(0);
    if content_length > MAX_BODY {
        return Err(Malformed {
            status: 413,
            message: "request body too large",
        });
    }
    Ok(Head {
        method: method.to_string(),
        target,
        keep_alive: !close && (keep || !http10),
        http10,
        content_length,
        host: authority.map(str::to_string).or(host),
    })
}

/// The authority (`host[:port]`) of an absolute-form target (`http://host:port/path`).
fn absolute_authority(target: &str) -> Option<&str> {
    let lower = target.get(..8).unwrap_or(target).to_ascii_lowercase();
    let skip = if lower.starts_with("http://") {
        7
    } else if lower.starts_with("https://") {
        8
    } else {
        return None;
    };
    let rest = &target[skip..];
    Some(&rest[..rest.find(['/', '?']).unwrap_or(rest.len())])
}

/// Whether a `Host` value (`host[:port]`) names this machine: `localhost` (or a name under
/// `.localhost`), or a loopback address (`127.0.0.1`, `[::1]`, any of `127.0.0.0/8`). A
/// server bound to a loopback address answers only such requests: a web page whose own name
/// was re-pointed at 127.0.0.1 (DNS rebinding) sends its own name, and is refused.
///
/// ```text
/// localhost:8080  127.0.0.1  [::1]:80  app.localhost   -> true
/// evil.example:8080  127.0.0.1.evil.example  [::2]     -> false
/// ```
pub fn loopback_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        // `[v6]` or `[v6]:port`
        Some(rest) => match rest.split_once(']') {
            Some((v6, port)) if port.is_empty() || port.starts_with(':') => {
                return v6
                    .parse::<std::net::Ipv6Addr>()
                    .is_ok_and(|a| a.is_loopback());
            }
            _ => return false,
        },
        None => host.rsplit_once(':').map_or(host, |(h, _)| h),
    };
    let name = name.strip_suffix('.').unwrap_or(name).to_ascii_lowercase();
    name == "localhost"
        || name.ends_with(".localhost")
        || name
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|a| a.is_loopback())
}

/// The target in origin form: `/path?query` as is, `http://host/path` without its scheme
/// and authority, `*` as is; anything else is `None`.
fn origin_form(target: &str) -> Option<String> {
    if target.starts_with('/') || target == "*" {
        return Some(target.to_string());
    }
    let lower = target.get(..8).unwrap_or(target).to_ascii_lowercase();
    let rest = if lower.starts_with("http://") {
        &target[7..]
    } else if lower.starts_with("https://") {
        &target[8..]
    } else {
        return None;
    };
    match rest.find(['/', '?']) {
        Some(i) if rest.as_bytes()[i] == b'/' => Some(rest[i..].to_string()),
        Some(i) => Some(format!("/{}", &rest[i..])),
        None => Some("/".to_string()),
    }
}

/// The reason phrase of the statuses qipu answers.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        411 => "Length Required",
        413 => "Content Too Large",
        414 => "URI Too Long",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Unknown",
    }
}

/// The bytes of an answer: status line, headers (`Content-Length` added), blank line, and
/// the body unless `with_body` is false (HEAD).
pub fn answer(status: u16, headers: &[(&str, &str)], body: &[u8], with_body: bool) -> Vec<u8> {
    let mut out = head(
        status,
        headers,
        body.len(),
        if with_body { body.len() } else { 0 },
    );
    if with_body {
        out.extend_from_slice(body);
    }
    out
}

/// The head of an answer with a body of `length` bytes (status line, headers,
/// `Content-Length`, blank line), with room for `spare` more bytes.
pub fn head(status: u16, headers: &[(&str, &str)], length: usize, spare: usize) -> Vec<u8> {
    use std::io::Write;
    let mut out = Vec::with_capacity(512 + spare);
    let _ = write!(out, "HTTP/1.1 {status} {}\r\n", reason(status));
    for (name, value) in headers {
        let _ = write!(out, "{name}: {value}\r\n");
    }
    let _ = write!(out, "Content-Length: {length}\r\n\r\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_from_the_header_or_an_absolute_target_and_loopback_names() {
        let h = parse_str("GET /a HTTP/1.1\r\nHost: localhost:8080\r\n\r\n").unwrap();
        assert_eq!(h.host.as_deref(), Some("localhost:8080"));
        let h =
            parse_str("GET http://evil.example:80/a HTTP/1.1\r\nHost: localhost\r\n\r\n").unwrap();
        assert_eq!(h.host.as_deref(), Some("evil.example:80"));
        assert_eq!(h.target, "/a");
        assert_eq!(parse_str("GET / HTTP/1.0\r\n\r\n").unwrap().host, None);
        assert!(parse_str("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n").is_err());
        for yes in [
            "localhost",
            "LOCALHOST:8080",
            "localhost.",
            "app.localhost:3000",
            "127.0.0.1",
            "127.1.2.3:80",
            "[::1]",
            "[::1]:8080",
        ] {
            assert!(loopback_host(yes), "{yes}");
        }
        for no in [
            "",
            "evil.example",
            "evil.example:8080",
            "127.0.0.1.evil.example",
            "localhost.evil.example",
            "10.0.0.1",
            "[::2]:80",
            "[::1",
            "[::1]x",
            "0.0.0.0",
        ] {
            assert!(!loopback_host(no), "{no}");
        }
    }

    fn parse_str(s: &str) -> Result<Head, Malformed> {
        parse(s.as_bytes())
    }

    #[test]
    fn head_end_finds_the_blank_line_in_any_split() {
        let text = b"GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b";
        for cut in 0..text.len() {
            let mut scanned = 0;
            let first = head_end(&text[..cut], &mut scanned);
            let second = head_end(text, &mut scanned);
            if cut >= 28 {
                assert_eq!(first, Some(28), "cut {cut}");
            } else {
                assert_eq!(first, None, "cut {cut}");
                assert_eq!(second, Some(28), "cut {cut}");
            }
        }
        assert_eq!(head_end(b"GET / HTTP/1.0\n\n", &mut 0), Some(16));
    }

    #[test]
    fn good_requests() {
        let h = parse_str("GET /api/status?x=1 HTTP/1.1\r\nHost: a\r\n\r\n").unwrap();
        assert_eq!(
            (h.method.as_str(), h.target.as_str()),
            ("GET", "/api/status?x=1")
        );
        assert!(h.keep_alive && !h.http10);
        let h = parse_str("HEAD / HTTP/1.0\r\n\r\n").unwrap();
        assert!(!h.keep_alive && h.http10);
        let h = parse_str("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n").unwrap();
        assert!(h.keep_alive);
        let h = parse_str("GET / HTTP/1.1\r\nconnection: foo, close\r\n\r\n").unwrap();
        assert!(!h.keep_alive);
        let h = parse_str("GET http://localhost:8080/api/x?y HTTP/1.1\r\n\r\n").unwrap();
        assert_eq!(h.target, "/api/x?y");
        assert_eq!(
            parse_str("GET HTTP://h?q HTTP/1.1\r\n\r\n").unwrap().target,
            "/?q"
        );
        let h = parse_str("POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n");
        assert_eq!(h.unwrap().content_length, 5);
        // Header values may carry bytes above ASCII (obs-text).
        assert!(parse(b"GET / HTTP/1.1\r\nUser-Agent: caf\xc3\xa9\r\n\r\n").is_ok());
    }

    #[test]
    fn malformed_requests_are_refused_with_their_status() {
        let status = |b: &[u8]| parse(b).err().map(|m| m.status);
        let long = format!("GET /{} HTTP/1.1\r\n\r\n", "a".repeat(MAX_TARGET));
        let many = format!(
            "GET / HTTP/1.1\r\n{}\r\n",
            "A: b\r\n".repeat(MAX_HEADERS + 1)
        );
        for (input, want) in [
            (&b"\r\n\r\n"[..], 400),
            (b"GET\r\n\r\n", 400),
            (b"GET /\xe7\x82\xae HTTP/1.1\r\n\r\n", 400),
            (b"GET / HTTP/9.9\r\n\r\n", 400),
            (b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 400),
            (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\n\n", 400),
            (b"\x00\x01\x02 garbage\r\n\r\n", 400),
            (b"GET  / HTTP/1.1\r\n\r\n", 400),
            (b"G(T / HTTP/1.1\r\n\r\n", 400),
            (b"GET nohost HTTP/1.1\r\n\r\n", 400),
            (b"GET / HTTP/1.1\r\nno colon\r\n\r\n", 400),
            (b"GET / HTTP/1.1\r\n folded: x\r\n\r\n", 400),
            (b"GET / HTTP/1.1\r\nA b: c\r\n\r\n", 400),
            (b"GET / HTTP/1.1\r\nA: b\x00c\r\n\r\n", 400),
            (b"GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400),
            (
                b"GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
                400,
            ),
            (b"GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 411),
            (b"GET / HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n", 413),
            (long.as_bytes(), 414),
            (many.as_bytes(), 431),
        ] {
            assert_eq!(
                status(input),
                Some(want),
                "{:?}",
                String::from_utf8_lossy(input)
            );
        }
    }

    #[test]
    fn answers_carry_their_length_and_drop_the_body_for_head() {
        let a = answer(404, &[("Content-Type", "text/plain")], b"no", true);
        assert_eq!(
            a,
            b"HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nno"
        );
        let h = answer(200, &[], b"abc", false);
        assert_eq!(h, b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n");
    }
}
