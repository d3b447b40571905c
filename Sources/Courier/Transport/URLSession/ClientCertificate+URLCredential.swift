import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(Security) && !canImport(FoundationNetworking)
    import Security

    extension ClientCertificate {
        /// The credential URLSession answers a client-certificate challenge with: the identity and
        /// chain of a PKCS#12 bundle (Apple's Security framework reads no PEM key without a
        /// keychain). `nil` when the bundle cannot be read or unlocked.
        func urlCredential() -> URLCredential? {
            guard format == .pkcs12, let data = try? Data(contentsOf: certificate) else { return nil }
            let options = [kSecImportExportPassphrase as String: passphrase ?? ""] as CFDictionary
            var items: CFArray?
            guard SecPKCS12Import(data as CFData, options, &items) == errSecSuccess,
                let entries = items as? [[String: Any]], let entry = entries.first,
                let identity = entry[kSecImportItemIdentity as String]
            else { return nil }
            let chain = (entry[kSecImportItemCertChain as String] as? [SecCertificate]) ?? []
            return URLCredential(
                identity: identity as! SecIdentity, certificates: Array(chain.dropFirst()), persistence: .forSession)
        }
    }
#endif
