import Foundation

/// Which client's middleware chain a request is passing through: one value per ``APIClient``
/// (shared by its copies), visible to middlewares while they run as ``CallContext/scope``.
///
/// A middleware instance shared by several clients uses it to keep their requests apart: two
/// clients may add different credentials after it, so what one of them receives is never handed
/// to the other (see ``DeduplicationMiddleware``).
package final class ClientScope: Sendable {
    /// An identity that is equal only for the same scope.
    var identity: ObjectIdentifier { ObjectIdentifier(self) }
}
