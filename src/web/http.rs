//! Which `Host` names this machine: the check behind the loopback rule of the server
//! ([`super::server`]). HTTP syntax itself is hyper's.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_names() {
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
}
