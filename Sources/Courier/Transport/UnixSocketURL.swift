import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A URL of a service on a Unix domain socket, in AsyncHTTPClient's form: the scheme `http+unix`
/// (or `https+unix`) and the socket's path, percent-encoded, as the host:
/// `http+unix://%2Fvar%2Frun%2Fdocker.sock/v1.43/info`.
///
/// The origin (what redirects, credentials, cookies and caches are decided by) is the scheme and
/// the socket path: two sockets are two origins, and `http+unix://…` and `http://localhost` are
/// two origins too. On the wire the request goes to `localhost`: its Host header says `localhost`
/// unless the caller sets one (as `curl --unix-socket` does).
enum UnixSocketURL {
    /// The schemes of socket URLs.
    static let schemes: Set<String> = ["http+unix", "https+unix"]

    /// Whether `scheme` (lowercased) names a socket URL.
    static func isSocketScheme(_ scheme: String?) -> Bool {
        scheme.map(schemes.contains) ?? false
    }

    /// Whether `scheme` (lowercased) is encrypted: `https` or `https+unix`.
    static func isSecure(_ scheme: String?) -> Bool {
        scheme == "https" || scheme == "https+unix"
    }

    /// The socket path of a socket URL (its host, percent-decoded); `nil` for any other URL.
    static func socketPath(of url: URL) -> String? {
        guard isSocketScheme(url.scheme?.lowercased()), let path = url.host(percentEncoded: false), !path.isEmpty
        else { return nil }
        return path
    }

    /// The URL libcurl is given for a socket URL: `http://localhost` (or `https://`) with the
    /// request's path and query, and a port of the socket's own (see ``wirePort(for:)``); libcurl
    /// connects to the socket, and the caller sends `Host: localhost` unless the request has a Host.
    static func wireURLString(for url: URL, socketPath: String) -> String {
        let secure = isSecure(url.scheme?.lowercased())
        var text = secure ? "https://localhost:" : "http://localhost:"
        text += String(wirePort(for: socketPath))
        let path = url.path(percentEncoded: true)
        text += path.isEmpty ? "/" : path
        if let query = url.query(percentEncoded: true) {
            text += "?"
            text += query
        }
        return text
    }

    /// A port number of the socket's own, 1024–65535 (a hash of its path): the port is never
    /// dialled, but libcurl counts its per-host connection limit by host name and port, and with
    /// `localhost:80` for every socket a busy socket would hold up requests to all the others.
    /// (libcurl matches connections by socket path, so two sockets whose ports collide share a
    /// limit, never a connection.)
    static func wirePort(for socketPath: String) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in socketPath.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return 1024 + Int(hash % UInt64(65536 - 1024))
    }

    /// Why nothing answers on `path`, for an error a user can act on: it does not exist, it is not
    /// a socket, it may not be opened, or nothing listens on it.
    static func diagnose(_ path: String, errorNumber: Int32) -> String {
        var status = stat()
        guard stat(path, &status) == 0 else {
            return "the Unix socket \(path) cannot be reached: \(String(cString: strerror(errno)))"
        }
        if status.st_mode & S_IFMT != S_IFSOCK {
            return "\(path) is not a Unix socket"
        }
        if errorNumber == EACCES || errorNumber == EPERM {
            return "permission denied to connect to the Unix socket \(path)"
        }
        let reason = errorNumber != 0 ? String(cString: strerror(errorNumber)) : "nothing answered"
        return "cannot connect to the Unix socket \(path): \(reason)"
    }
}
