import Foundation

/// The default decoding of a `Decodable` response (see ``Endpoint``).
enum ResponseDecoding {
    static func decode<Value: Decodable>(
        _ type: Value.Type,
        from response: HTTPResponse,
        using decoder: JSONDecoder
    ) throws -> Value {
        if Value.self == Data.self, let data = response.body as? Value {
            return data
        }
        if Value.self == String.self, let text = try decodeText(response) as? Value {
            return text
        }
        if Value.self == EmptyResponse.self, let empty = EmptyResponse() as? Value {
            return empty
        }
        return try decoder.decode(Value.self, from: response.body)
    }

    /// The body as text in the charset its `Content-Type` names (UTF-8 when it names none).
    static func decodeText(_ response: HTTPResponse) throws -> String {
        let encoding = charset(of: response.headers[.contentType]) ?? .utf8
        guard let text = String(data: response.body, encoding: encoding) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: [], debugDescription: "the body is not valid \(encoding) text")
            )
        }
        return text
    }

    private static func charset(of contentType: String?) -> String.Encoding? {
        guard let contentType else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map {
                $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
            guard pair.count == 2, pair[0].lowercased() == "charset" else { continue }
            switch pair[1].lowercased() {
            case "utf-8", "utf8": return .utf8
            case "iso-8859-1", "latin1", "iso8859-1": return .isoLatin1
            case "us-ascii", "ascii": return .ascii
            case "utf-16": return .utf16
            case "utf-16le": return .utf16LittleEndian
            case "utf-16be": return .utf16BigEndian
            case "windows-1252", "cp1252": return .windowsCP1252
            default: return nil
            }
        }
        return nil
    }
}
