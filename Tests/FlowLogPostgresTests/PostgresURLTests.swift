// Needs the `Network` trait: PostgreSQL and the HTTPS transport are built only with it.
#if Network
    import FlowLogBasics
    @testable import FlowLogPostgres
    import FlowLogTesting
    import Foundation
    import Testing

    @Suite("PostgreSQL URLs")
    struct PostgresURLTests {
        private let empty: [String: String] = [:]

        @Test func everyPartIsReadAndThePasswordNeverShown() throws {
            let url = try PostgresURL(
                "postgresql://ana:s%40cret@db.example:6543/shop?schema=tenant_7&sslmode=verify-full&sslrootcert=/etc/ca.pem", environment: empty)
            #expect(url.user == "ana")
            #expect(url.password == "s@cret")
            #expect(url.host == "db.example")
            #expect(url.port == 6543)
            #expect(url.database == "shop")
            #expect(url.schema == "tenant_7")
            #expect(url.sslMode == .verifyFull)
            #expect(url.sslRootCertificate == "/etc/ca.pem")
            #expect(url.redacted == "postgres://ana@db.example:6543/shop?schema=tenant_7&sslmode=verify-full&sslrootcert=/etc/ca.pem")
            #expect(!"\(url)".contains("cret"))
        }

        @Test func defaultsFollowLibpq() throws {
            let url = try PostgresURL("postgres://bob@localhost/flow", environment: empty)
            #expect(url.port == 5432 && url.schema == "flowlog" && url.sslMode == .prefer && url.password == nil)
            let bare = try PostgresURL("postgres:///", environment: ["USER": "carol"])
            #expect(bare.user == "carol" && bare.database == "carol" && bare.host == "localhost")
        }

        @Test func aUnixSocketIsAFolder() throws {
            let url = try PostgresURL("postgres://postgres@/flow?host=/tmp/pg&port=5544", environment: empty)
            #expect(url.host == nil && url.socketPath == "/tmp/pg/.s.PGSQL.5544")
            let encoded = try PostgresURL("postgres://postgres@%2Fvar%2Frun%2Fpostgresql/flow", environment: empty)
            #expect(encoded.socketPath == "/var/run/postgresql/.s.PGSQL.5432")
            #expect(encoded.redacted == "postgres://postgres@/flow?host=/var/run/postgresql&port=5432")
        }

        @Test func thePasswordComesFromTheURLThenPGPASSWORDThenThePasswordFile() throws {
            let folder = TemporaryDirectory()
            let file = folder.child("pgpass")
            try "# comment\nother:5432:*:ana:wrong\ndb.example:*:shop:ana:from\\:file\n".write(toFile: file, atomically: true, encoding: .utf8)
            chmod(file, 0o600)
            let fromFile = try PostgresURL("postgres://ana@db.example/shop", environment: ["PGPASSFILE": file])
            #expect(fromFile.password == "from:file")
            let fromVariable = try PostgresURL("postgres://ana@db.example/shop", environment: ["PGPASSFILE": file, "PGPASSWORD": "variable"])
            #expect(fromVariable.password == "variable")
            let fromURL = try PostgresURL("postgres://ana:url@db.example/shop", environment: ["PGPASSFILE": file, "PGPASSWORD": "variable"])
            #expect(fromURL.password == "url")
            chmod(file, 0o644)
            let unsafeFile = try PostgresURL("postgres://ana@db.example/shop", environment: ["PGPASSFILE": file])
            #expect(unsafeFile.password == nil, "a password file others may read is ignored, as libpq ignores it")
        }

        @Test func badURLsAreRefusedWithoutThePassword() {
            for text in [
                "postgres://ana:hunter2@h/db?schema=Bad-Name", "postgres://ana:hunter2@h:port/db",
                "postgres://ana:hunter2@h/db?sslmode=sometimes", "postgres://ana:hunter2@h/db?color=blue",
                "postgres://ana@h/db?password=hunter2&schema=x;drop",
            ] {
                do {
                    _ = try PostgresURL(text, environment: [:])
                    Issue.record("\(text) was accepted")
                } catch {
                    #expect(!"\(error)".contains("hunter2"), "\(error)")
                    guard case .notALog = error else {
                        Issue.record("\(error)")
                        continue
                    }
                }
            }
            #expect(PostgresURL.redact("postgresql://u:p%40ss@h:1/d?password=x&schema=s") == "postgresql://u@h:1/d?schema=s")
            #expect(PostgresURL.isPostgresURL("POSTGRES://h/d") && !PostgresURL.isPostgresURL("./flowlog.lmdb"))
        }
    }
#endif
