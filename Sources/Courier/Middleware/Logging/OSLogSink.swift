#if canImport(os)
    import os

    /// Writes lines to the unified logging system through an `os.Logger`.
    ///
    /// Messages are logged as public: Courier has already redacted their secrets.
    public struct OSLogSink: LogSink {
        /// Lines below this level are dropped.
        public let minimumLevel: LogLevel
        private let logger: Logger

        /// Creates a sink for a subsystem and category.
        public init(subsystem: String = "Courier", category: String = "network", minimumLevel: LogLevel = .info) {
            self.logger = Logger(subsystem: subsystem, category: category)
            self.minimumLevel = minimumLevel
        }

        /// Writes the line at the matching `OSLogType`.
        public func log(_ level: LogLevel, _ message: String) {
            switch level {
            case .debug: logger.debug("\(message, privacy: .public)")
            case .info: logger.info("\(message, privacy: .public)")
            case .warning: logger.warning("\(message, privacy: .public)")
            case .error: logger.error("\(message, privacy: .public)")
            }
        }
    }
#endif
