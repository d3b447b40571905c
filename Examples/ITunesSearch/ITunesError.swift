import Courier

/// The iTunes Search API's error body: `{"errorMessage": "Invalid value(s) for key(s): [mediaType]",
/// "queryParameters": {…}}`, sent with a 400.
public struct ITunesError: ServerErrorBody, Hashable {
    /// The API's explanation.
    public let errorMessage: String
    /// The parameters the API saw, as it echoes them.
    public let queryParameters: [String: String]?

    /// The explanation, for ``APIError``'s description.
    public var serverMessage: String? { errorMessage }
}
