import Foundation

/// A client certificate for mutual TLS: the certificate (with its chain) and the private key that
/// proves it, read from files when a connection needs them.
///
/// Two forms, as servers' administrators hand them out:
/// - ``pem(certificate:privateKey:passphrase:)``: a PEM certificate chain and a PEM private key,
///   the key encrypted or not, in its own file or in the certificate's;
/// - ``pkcs12(_:passphrase:)``: a PKCS#12 (`.p12`, `.pfx`) bundle of both.
///
/// The passphrase is kept only to unlock the key: ``description``, `dump` and every error and log
/// line show `<redacted>` in its place.
///
/// ```swift
/// let transport = CurlTransport(configuration: .init(tls: .init(
///     certificateAuthorities: URL(fileURLWithPath: "/etc/myapp/ca.pem"),
///     clientCertificate: .pem(
///         certificate: URL(fileURLWithPath: "/etc/myapp/client.pem"),
///         privateKey: URL(fileURLWithPath: "/etc/myapp/client.key"),
///         passphrase: secrets.keyPassphrase))))
/// ```
public struct ClientCertificate: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// How the certificate and its key are stored.
    public enum Format: String, Sendable, Hashable {
        /// PEM text: a certificate chain, and a private key in the same file or another.
        case pem
        /// A PKCS#12 bundle of the certificate, its chain and its key.
        case pkcs12
    }

    /// How the certificate and its key are stored.
    public let format: Format
    /// The file of the certificate (PEM: the chain, leaf first; PKCS#12: the bundle).
    public let certificate: URL
    /// The PEM file of the private key, when it is not in ``certificate``'s file.
    public let privateKey: URL?
    /// The passphrase that unlocks the key (or the PKCS#12 bundle); never shown.
    let passphrase: String?

    /// A PEM certificate chain (leaf first) and its private key.
    ///
    /// - Parameters:
    ///   - certificate: The PEM file of the certificate and any intermediate certificates.
    ///   - privateKey: The PEM file of the private key; `nil` when it is in `certificate`'s file.
    ///   - passphrase: The passphrase of an encrypted key.
    public static func pem(certificate: URL, privateKey: URL? = nil, passphrase: String? = nil) -> ClientCertificate {
        ClientCertificate(format: .pem, certificate: certificate, privateKey: privateKey, passphrase: passphrase)
    }

    /// A PKCS#12 bundle (`.p12`, `.pfx`) of the certificate, its chain and its key.
    ///
    /// libcurl reads it with OpenSSL 3, which refuses bundles protected with the legacy RC2 and
    /// 3DES algorithms unless the legacy provider is configured: make them with
    /// `openssl pkcs12 -export` (AES-256 by default since OpenSSL 3) or convert an old one.
    ///
    /// - Parameters:
    ///   - file: The bundle.
    ///   - passphrase: Its passphrase, if it has one.
    public static func pkcs12(_ file: URL, passphrase: String? = nil) -> ClientCertificate {
        ClientCertificate(format: .pkcs12, certificate: file, privateKey: nil, passphrase: passphrase)
    }

    /// Whether a passphrase was given.
    public var hasPassphrase: Bool { passphrase != nil }

    /// The form and the files, with the passphrase hidden:
    /// `ClientCertificate(pem: /etc/client.pem, key: /etc/client.key, passphrase: <redacted>)`.
    public var description: String {
        var parts = ["\(format.rawValue): \(certificate.path)"]
        if let privateKey { parts.append("key: \(privateKey.path)") }
        if passphrase != nil { parts.append("passphrase: <redacted>") }
        return "ClientCertificate(\(parts.joined(separator: ", ")))"
    }

    /// A mirror without the passphrase, so `dump` and debuggers do not show it either.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "format": format, "certificate": certificate, "privateKey": privateKey as Any,
                "passphrase": passphrase == nil ? "nil" : "<redacted>",
            ], displayStyle: .struct)
    }
}
