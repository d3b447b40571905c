/// The response of a call whose body does not matter: `204 No Content`, `205 Reset Content`,
/// `HEAD`, or any call answered with a body you want to ignore.
public struct EmptyResponse: Decodable, Sendable, Hashable {
    /// Creates the empty response.
    public init() {}
}
