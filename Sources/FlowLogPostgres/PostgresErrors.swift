#if Network
    import FlowLogBasics
    import Foundation
    import PostgresNIO

    /// PostgreSQL's failures as FlowLog's errors: each becomes the case (and so the exit status) a user
    /// of the log expects, with a sentence of its own. No message ever holds the password: the log is
    /// named by its redacted URL, and only the server's own words and FlowLog's are quoted.
    enum PostgresErrors {
        static func map(_ error: any Error, url: PostgresURL, during activity: String) -> FlowLogError {
            let location = url.redacted
            if let error = error as? FlowLogError { return error }
            if let error = error as? PostgresTransactionError {
                return map(error.closureError ?? error.commitError ?? error.beginError ?? error.rollbackError ?? error, url: url, during: activity)
            }
            if error is TimedOut {
                return .io(
                    path: location,
                    detail:
                        "the server at \(endpoint(url)) did not answer within the time limit while \(activity); it may be overloaded, stopped or unreachable"
                )
            }
            if let error = error as? PSQLError {
                return map(error, url: url, location: location, during: activity)
            }
            if let error = error as? NIOSSLError {
                return .io(path: location, detail: "TLS with \(endpoint(url)) failed while \(activity) (\(error)); check sslmode and sslrootcert")
            }
            if let error = error as? BoringSSLError {
                return .io(path: location, detail: "TLS with \(endpoint(url)) failed while \(activity) (\(error)); check sslmode and sslrootcert")
            }
            if error is PostgresDecodingError {
                return .io(path: location, detail: "a value the server sent could not be read while \(activity) (a column has an unexpected type)")
            }
            return .io(path: location, detail: "\(activity) failed: \(connectionProblem(error))")
        }

        private static func map(_ error: PSQLError, url: PostgresURL, location: String, during activity: String) -> FlowLogError {
            switch error.code {
            case .server:
                let state = error.serverInfo?[.sqlState] ?? ""
                let message = error.serverInfo?[.message] ?? "no message"
                switch state {
                case "28P01", "28000":
                    return .permissionDenied(path: location)
                case "3D000":
                    return .notFound(path: location)
                case "42501":
                    return .permissionDenied(path: location)
                case "53100":
                    return .diskFull(path: location)
                case "57P01", "57P02", "57P03":
                    return .io(
                        path: location, detail: "the server at \(endpoint(url)) is shutting down or starting up (\(message)) while \(activity)")
                default:
                    if state.hasPrefix("08") {
                        return .io(path: location, detail: "the connection to \(endpoint(url)) failed while \(activity) (\(message))")
                    }
                    return .io(path: location, detail: "PostgreSQL refused a statement while \(activity): \(message) (SQLSTATE \(state))")
                }
            case .authMechanismRequiresPassword:
                return .permissionDenied(path: location)
            case .unsupportedAuthMechanism, .saslError:
                return .permissionDenied(path: location)
            case .sslUnsupported:
                return .io(
                    path: location, detail: "the server at \(endpoint(url)) does not offer TLS, and sslmode=\(url.sslMode.rawValue) requires it")
            case .serverClosedConnection, .uncleanShutdown, .clientClosedConnection:
                return .io(
                    path: location,
                    detail: "the connection to \(endpoint(url)) was lost while \(activity) (the server restarted, or the network failed)")
            case .connectionError:
                return .io(path: location, detail: "cannot connect to \(endpoint(url)): \(connectionProblem(error.underlying))")
            case .queryCancelled:
                return .io(path: location, detail: "the server cancelled a statement while \(activity)")
            default:
                if let underlying = error.underlying, underlying is NIOSSLError || underlying is BoringSSLError {
                    return .io(path: location, detail: "TLS with \(endpoint(url)) failed (\(underlying)); check sslmode and sslrootcert")
                }
                return .io(path: location, detail: "PostgreSQL client error while \(activity) (\(error.code))")
            }
        }

        /// Whether the connection can no longer be used after `error`.
        static func isConnectionLoss(_ error: any Error) -> Bool {
            guard let error = error as? PSQLError else { return !(error is PostgresDecodingError) && !(error is FlowLogError) }
            switch error.code {
            case .server:
                let state = error.serverInfo?[.sqlState] ?? ""
                return state.hasPrefix("08") || state.hasPrefix("57P")
            case .serverClosedConnection, .uncleanShutdown, .clientClosedConnection, .connectionError, .messageDecodingFailure,
                .unexpectedBackendMessage:
                return true
            default:
                return false
            }
        }

        /// Where the server is, as a person would name it.
        static func endpoint(_ url: PostgresURL) -> String {
            if let socket = url.socketPath { return "the Unix socket \(socket)" }
            let host = url.host ?? "localhost"
            return (host.contains(":") ? "[\(host)]" : host) + ":\(url.port)"
        }

        /// A connection failure in words: refused, unreachable, unknown host, timed out.
        static func connectionProblem(_ error: (any Error)?) -> String {
            guard let error else { return "the connection failed" }
            let text = "\(error)"
            if let io = error as? IOError {
                return describe(errno: io.errnoCode, fallback: text)
            }
            if let connection = error as? NIOConnectionError {
                if let first = connection.connectionErrors.first {
                    return connectionProblem(first.error)
                }
                if connection.dnsAAAAError != nil || connection.dnsAError != nil {
                    return "the host name could not be resolved"
                }
                return "the connection failed"
            }
            if error is ChannelError, case .connectTimeout = error as! ChannelError {
                return "no answer within the connect timeout (connect_timeout)"
            }
            if text.contains("connection refused") || text.contains("ECONNREFUSED") || text.contains("errno: 111") {
                return "connection refused (is the server running, and listening there?)"
            }
            if text.contains("No such file") || text.contains("errno: 2") {
                return "no server socket there (is the server running, and listening there?)"
            }
            return text
        }

        private static func describe(errno code: Int32, fallback: String) -> String {
            switch code {
            case ECONNREFUSED: return "connection refused (is the server running, and listening there?)"
            case ENOENT: return "no server socket there (is the server running, and listening there?)"
            case ECONNRESET: return "the connection was reset by the server"
            case ETIMEDOUT: return "the connection timed out"
            case EHOSTUNREACH, ENETUNREACH: return "the host is unreachable"
            case EACCES: return "permission denied for the socket"
            default: return fallback
            }
        }
    }
#endif
