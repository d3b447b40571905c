/// The version of Courier, as sent in the default `User-Agent`.
enum CourierVersion {
    static let current = "0.1.0"
}
