#if Network
    import AsyncHTTPClient
    import Foundation

    /// The proxy settings curl and most HTTP tools read from the environment, which AsyncHTTPClient
    /// does not read itself: `HTTPS_PROXY` (or `HTTP_PROXY`, `ALL_PROXY`, in either case) for the
    /// proxy, `NO_PROXY` for the hosts to reach directly (names, `.suffix` domains, `*`). Loopback
    /// collectors are always reached directly.
    struct ProxyEnvironment {
        let proxy: HTTPClient.Configuration.Proxy?
        private let exceptions: [String]

        init(_ environment: [String: String]) {
            func value(_ names: String...) -> String? {
                names.lazy.compactMap { environment[$0] ?? environment[$0.lowercased()] }.first { !$0.isEmpty }
            }
            exceptions = (value("NO_PROXY") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter {
                !$0.isEmpty
            }
            guard let raw = value("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY"),
                let url = URL(string: raw.contains("://") ? raw : "http://" + raw), let host = url.host
            else {
                proxy = nil
                return
            }
            if url.scheme?.lowercased().hasPrefix("socks") == true {
                proxy = .socksServer(host: host, port: url.port ?? 1080)
            } else {
                let authorization = url.user.map {
                    HTTPClient.Authorization.basic(username: $0.removingPercentEncoding ?? $0, password: url.password?.removingPercentEncoding ?? "")
                }
                proxy = .server(host: host, port: url.port ?? 80, authorization: authorization)
            }
        }

        /// Whether `host` is reached without the proxy.
        func bypasses(host: String) -> Bool {
            let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            if host == "localhost" || host == "::1" || host.hasPrefix("127.") { return true }
            return exceptions.contains { rule in
                let name = rule.split(separator: ":").first.map(String.init) ?? rule
                if name == "*" { return true }
                let domain = name.hasPrefix(".") ? String(name.dropFirst()) : name
                return host == domain || host.hasSuffix("." + domain)
            }
        }
    }
#endif
