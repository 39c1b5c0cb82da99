//! The web page's files, embedded in the binary: the only files the server can send.

/// `(path, content type, content)` of every embedded file.
const ASSETS: &[(&str, &str, &str)] = &[
    ("/", "text/html; charset=utf-8", include_str!("../assets/index.html")),
    ("/index.html", "text/html; charset=utf-8", include_str!("../assets/index.html")),
    ("/assets/app.js", "text/javascript; charset=utf-8", include_str!("../assets/app.js")),
    ("/assets/style.css", "text/css; charset=utf-8", include_str!("../assets/style.css")),
];

/// The embedded file at `path` (exact match, no file system), as (content type, content).
pub(crate) fn get(path: &str) -> Option<(&'static str, &'static str)> {
    ASSETS.iter().find(|(p, _, _)| *p == path).map(|&(_, ty, body)| (ty, body))
}
