import Foundation

/// Turns a `DecodingError` into words a person can act on: where in the body decoding stopped, what
/// was expected there and what was actually found.
enum DecodingDiagnosis {
    /// `decoding SearchPage failed at results[3].trackPrice: expected Double, found a string`.
    static func describe(_ error: any Error, decoding typeName: String, body: Data) -> String {
        guard let decodingError = error as? DecodingError else {
            return "decoding \(typeName) failed: \(error)"
        }
        let (path, reason) = explain(decodingError, body: body)
        let location = path.isEmpty ? "" : " at \(render(path))"
        return "decoding \(typeName) failed\(location): \(reason)"
    }

    private static func explain(_ error: DecodingError, body: Data) -> (path: [any CodingKey], reason: String) {
        switch error {
        case .typeMismatch(let type, let context):
            let found = describeValue(at: context.codingPath, in: body)
            return (context.codingPath, "expected \(type)" + (found.map { ", found \($0)" } ?? ""))
        case .valueNotFound(let type, let context):
            return (context.codingPath, "expected \(type), found null")
        case .keyNotFound(let key, let context):
            return (context.codingPath, "the key \"\(key.stringValue)\" is missing")
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                return ([], describeUnreadableBody(body, detail: context.debugDescription))
            }
            return (context.codingPath, context.debugDescription)
        @unknown default:
            return ([], "\(error)")
        }
    }

    private static func describeUnreadableBody(_ body: Data, detail: String) -> String {
        if body.isEmpty { return "the body is empty" }
        if (try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])) == nil {
            let start = String(decoding: body.prefix(16), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            if start.hasPrefix("<") { return "the body is not JSON (it starts like HTML or XML)" }
            return "the body is not valid JSON"
        }
        return detail
    }

    /// `results[3].trackPrice`
    static func render(_ path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text
    }

    /// What kind of JSON value stands at the path: `a string`, `a number`, `an object`, … (never the
    /// value itself, which might be a secret).
    private static func describeValue(at path: [any CodingKey], in body: Data) -> String? {
        guard var value = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) else {
            return nil
        }
        for key in path {
            if let index = key.intValue, let array = value as? [Any], array.indices.contains(index) {
                value = array[index]
            } else if let object = value as? [String: Any], let next = object[key.stringValue] {
                value = next
            } else {
                return nil
            }
        }
        switch value {
        case is NSNull: return "null"
        case is String: return "a string"
        case is [Any]: return "an array"
        case is [String: Any]: return "an object"
        case let number as NSNumber: return isBoolean(number) ? "a boolean" : "a number"
        default: return nil
        }
    }

    private static func isBoolean(_ number: NSNumber) -> Bool {
        // JSONSerialization returns booleans as NSNumbers whose Objective-C type is `c` (char), which
        // no JSON number produces: integers come back as `i`/`q`, others as `d`.
        String(cString: number.objCType) == "c"
    }
}
