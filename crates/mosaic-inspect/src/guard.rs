//! What every request must pass before it is answered: a Host header naming this server (DNS
//! rebinding) and no foreign `Origin`; for reads of the API no `Sec-Fetch-Site` naming another
//! site (a page's no-cors requests, which carry no `Origin`); for writes a JSON body type and the
//! server's token (cross-site requests). The checks follow the advice for local development
//! servers (the Host allow-list of webpack-dev-server and Jupyter, Jupyter's token in the
//! printed URL) and the Fetch Metadata resource isolation policy (web.dev, "Protect your
//! resources from web attacks with Fetch Metadata").

use std::net::{IpAddr, SocketAddr};

use crate::error::ApiError;

/// The header a write carries the token in.
pub(crate) const TOKEN_HEADER: &str = "X-Mosaic-Token";

/// The headers the checks read, taken from one request.
#[derive(Debug, Default)]
pub(crate) struct Headers<'r> {
    pub(crate) host: Option<&'r str>,
    pub(crate) origin: Option<&'r str>,
    pub(crate) content_type: Option<&'r str>,
    pub(crate) token: Option<&'r str>,
    /// `Sec-Fetch-Site`: `same-origin`, `same-site`, `cross-site` or `none`, sent by browsers.
    pub(crate) fetch_site: Option<&'r str>,
}

impl<'r> Headers<'r> {
    /// Picks the checked headers out of a request's `(name, value)` pairs (names compared
    /// without case; for a repeated header other than Host, the last one counts). O(pairs).
    ///
    /// # Errors
    /// [`ApiError::BadRequest`] if Host appears more than once (RFC 9112 section 3.2: a server
    /// must refuse it, since a proxy and this server could read different ones).
    pub(crate) fn of(pairs: &[(&'r str, &'r str)]) -> Result<Self, ApiError> {
        let mut headers = Self::default();
        for &(name, value) in pairs {
            if name.eq_ignore_ascii_case("Host") {
                if headers.host.is_some() {
                    return Err(ApiError::BadRequest("more than one Host header".to_owned()));
                }
                headers.host = Some(value);
            } else if name.eq_ignore_ascii_case("Origin") {
                headers.origin = Some(value);
            } else if name.eq_ignore_ascii_case("Content-Type") {
                headers.content_type = Some(value);
            } else if name.eq_ignore_ascii_case(TOKEN_HEADER) {
                headers.token = Some(value);
            } else if name.eq_ignore_ascii_case("Sec-Fetch-Site") {
                headers.fetch_site = Some(value);
            }
        }
        Ok(headers)
    }
}

/// Whether `host` (a Host header: `name:port`, `[v6]:port`) names a server bound to `bound`:
/// the bound port, and a host that is `localhost` or an IP address literal. Host names other than
/// `localhost` are refused even when they resolve here: that is what a DNS-rebinding page sends.
pub(crate) fn host_allowed(host: &str, bound: SocketAddr) -> bool {
    let Some((name, port)) = host.rsplit_once(':') else { return false };
    if port.parse::<u16>() != Ok(bound.port()) {
        return false;
    }
    let name = name.strip_prefix('[').and_then(|n| n.strip_suffix(']')).unwrap_or(name);
    name.eq_ignore_ascii_case("localhost") || name.parse::<IpAddr>().is_ok()
}

/// Checks `headers` of a request with `method` for `path`: every request names this server in
/// Host and, if it has an `Origin`, names this server's own; a read (GET or HEAD) of the API
/// (`/api...`) must not come from a page of another site by `Sec-Fetch-Site` (`cross-site` or
/// `same-site`: another port of localhost is the same site but another origin; `same-origin`,
/// `none`, a typed URL, and no header, as curl sends, pass; the page's own files are served to
/// any, so a link to the inspector opens); a write (any method but GET and HEAD) also has a JSON
/// content type and `token`.
///
/// # Errors
/// [`ApiError::BadRequest`] without a Host header; [`ApiError::HostNotAllowed`];
/// [`ApiError::CrossOrigin`]; [`ApiError::CrossSiteRead`]; [`ApiError::NotJson`];
/// [`ApiError::BadToken`].
pub(crate) fn check(
    method: &str,
    path: &str,
    headers: &Headers<'_>,
    bound: SocketAddr,
    token: &str,
) -> Result<(), ApiError> {
    let host = headers.host.ok_or_else(|| ApiError::BadRequest("no Host header".to_owned()))?;
    if !host_allowed(host, bound) {
        return Err(ApiError::HostNotAllowed(host.chars().take(200).collect()));
    }
    let write = method != "GET" && method != "HEAD";
    if write {
        // A write's body type first: a form-style POST is told what to send.
        let content_type = headers.content_type.unwrap_or("");
        let essence = content_type.split(';').next().unwrap_or("").trim();
        if !essence.eq_ignore_ascii_case("application/json") {
            return Err(ApiError::NotJson(content_type.chars().take(200).collect()));
        }
    }
    if let Some(origin) = headers.origin {
        let own = origin.strip_prefix("http://").is_some_and(|rest| rest.eq_ignore_ascii_case(host));
        if !own {
            return Err(ApiError::CrossOrigin(origin.chars().take(200).collect()));
        }
    }
    if !write {
        let api = path == "/api" || path.starts_with("/api/") || path.starts_with("/api?");
        let site = headers.fetch_site.unwrap_or("none");
        if api && (site.eq_ignore_ascii_case("cross-site") || site.eq_ignore_ascii_case("same-site")) {
            return Err(ApiError::CrossSiteRead(site.chars().take(40).collect()));
        }
        return Ok(());
    }
    if !headers.token.is_some_and(|given| constant_time_eq(given.as_bytes(), token.as_bytes())) {
        return Err(ApiError::BadToken);
    }
    Ok(())
}

/// Compares two byte strings in time that depends only on their lengths.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A new token: 128 random bits from the operating system, as 32 hex digits.
///
/// # Errors
/// The random source's error, as text.
pub(crate) fn new_token() -> Result<String, String> {
    let mut bytes = [0u8; 16];
    getrandom::getrandom(&mut bytes).map_err(|error| error.to_string())?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bound() -> SocketAddr {
        "127.0.0.1:7878".parse().unwrap()
    }

    #[test]
    fn hosts_name_this_server_by_address_or_localhost() {
        for ok in ["127.0.0.1:7878", "localhost:7878", "LOCALHOST:7878", "[::1]:7878", "10.0.0.2:7878"] {
            assert!(host_allowed(ok, bound()), "{ok}");
        }
        for bad in [
            "evil.example:7878",
            "127.0.0.1:80",
            "localhost",
            "127.0.0.1",
            "x",
            "",
            "[::1]",
            "a.localhost:7878",
        ] {
            assert!(!host_allowed(bad, bound()), "{bad}");
        }
    }

    /// A write's headers from this server's page, with `origin` and `token` as given.
    fn json_write<'a>(origin: Option<&'a str>, token: Option<&'a str>) -> Headers<'a> {
        Headers {
            host: Some("127.0.0.1:7878"),
            origin,
            content_type: Some("application/json; charset=utf-8"),
            token,
            fetch_site: None,
        }
    }

    #[test]
    fn writes_need_json_own_origin_and_token() {
        let good = json_write(Some("http://127.0.0.1:7878"), Some("t0k"));
        assert_eq!(check("POST", "/api/pause", &good, bound(), "t0k"), Ok(()));
        assert_eq!(
            check("POST", "/api/pause", &json_write(None, Some("t0k")), bound(), "t0k"),
            Ok(()),
            "curl sends no Origin"
        );
        let host_only = Headers { host: Some("127.0.0.1:7878"), ..Headers::default() };
        let cases = [
            (Headers { host: None, ..Headers::default() }, 400),
            (Headers { host: Some("evil.example:7878"), ..Headers::default() }, 403),
            (Headers { content_type: Some("text/plain"), ..json_write(None, Some("t0k")) }, 415),
            (host_only, 415),
            (json_write(Some("http://evil.example"), Some("t0k")), 403),
            (json_write(Some("null"), Some("t0k")), 403),
            (json_write(None, None), 403),
            (json_write(None, Some("t0kk")), 403),
        ];
        for (headers, status) in cases {
            let error = check("POST", "/api/pause", &headers, bound(), "t0k").expect_err("refused");
            assert_eq!(error.status(), status, "{headers:?}: {error}");
        }
        // Reads need only the Host.
        let read = Headers { host: Some("localhost:7878"), ..Headers::default() };
        assert_eq!(check("GET", "/api/world", &read, bound(), "t0k"), Ok(()));
    }

    #[test]
    fn reads_from_other_sites_and_origins_are_refused() {
        let read = |origin, fetch_site| Headers {
            host: Some("127.0.0.1:7878"),
            origin,
            fetch_site,
            ..Headers::default()
        };
        let status =
            |path, headers: &Headers<'_>| check("GET", path, headers, bound(), "t0k").map_err(|e| e.status());
        assert_eq!(status("/api/world", &read(None, Some("cross-site"))), Err(403));
        assert_eq!(status("/api/diff?a=1&b=2", &read(None, Some("Cross-Site"))), Err(403));
        assert_eq!(status("/api", &read(None, Some("same-site"))), Err(403));
        assert_eq!(status("/api/world", &read(Some("http://evil.example"), None)), Err(403));
        assert_eq!(status("/", &read(Some("null"), None)), Err(403));
        for ok in [None, Some("same-origin"), Some("none")] {
            assert_eq!(status("/api/world", &read(None, ok)), Ok(()), "{ok:?}");
        }
        assert_eq!(status("/api/world", &read(Some("http://127.0.0.1:7878"), Some("same-origin"))), Ok(()));
        // A link from another site opens the page; its reads of the API are its own origin's.
        assert_eq!(status("/", &read(None, Some("cross-site"))), Ok(()));
        assert_eq!(status("/apiary", &read(None, Some("cross-site"))), Ok(()));
    }

    #[test]
    fn headers_are_picked_by_name_without_case_and_one_host_only() {
        let pairs = [
            ("HOST", "127.0.0.1:7878"),
            ("content-type", "application/json"),
            ("x-mosaic-token", "t0k"),
            ("Origin", "http://127.0.0.1:7878"),
            ("Accept", "*/*"),
        ];
        let headers = Headers::of(&pairs).unwrap();
        assert_eq!(headers.host, Some("127.0.0.1:7878"));
        assert_eq!(headers.content_type, Some("application/json"));
        assert_eq!(headers.token, Some("t0k"));
        assert_eq!(headers.origin, Some("http://127.0.0.1:7878"));
        let twice = [("Host", "127.0.0.1:7878"), ("host", "evil.example:7878")];
        assert_eq!(Headers::of(&twice).unwrap_err().status(), 400);
    }

    #[test]
    fn tokens_are_32_hex_digits_and_differ() {
        let (a, b) = (new_token().unwrap(), new_token().unwrap());
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
