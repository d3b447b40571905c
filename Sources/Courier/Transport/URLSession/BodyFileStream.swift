import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A ``BodyFile`` as the `InputStream` a streamed upload task reads its body from (the session
/// delegate hands it over in `needNewBodyStream`): exactly the file's announced length, from its
/// open descriptor, and a failure, reported to `onProblem` before the stream fails, when the file
/// changed size.
///
/// URLSession frames such a body by the `Content-Length` the transport sets (see
/// ``URLSessionTransport``), so the stream's end is the request's end.
enum BodyFileStream {
    /// A new stream over `file`, from its first byte.
    static func make(_ file: BodyFile, onProblem: @escaping @Sendable (BodyFile.Problem) -> Void) -> InputStream {
        #if canImport(FoundationNetworking)
            FileInputStream(file, onProblem: onProblem)
        #else
            BodyFilePump.start(file, onProblem: onProblem)
        #endif
    }
}

#if canImport(FoundationNetworking)
    /// FoundationNetworking pulls the body through `hasBytesAvailable` and `read` on its own queue,
    /// one call at a time, and ends the body at the first `hasBytesAvailable == false` or a `read`
    /// of 0; a `read` of -1 aborts the transfer (libcurl's read callback abort).
    ///
    /// Not `Sendable`, like every stream: URLSession's queue is its only reader.
    final class FileInputStream: InputStream {
        private let file: BodyFile
        private let onProblem: @Sendable (BodyFile.Problem) -> Void
        private var offset: Int64 = 0
        private var status = Stream.Status.notOpen
        private var problem: BodyFile.Problem?

        init(_ file: BodyFile, onProblem: @escaping @Sendable (BodyFile.Problem) -> Void) {
            self.file = file
            self.onProblem = onProblem
            super.init(data: Data())
        }

        override var streamStatus: Stream.Status { status }
        override var streamError: (any Error)? { problem }
        // True until the end: a problem is reported by the read that finds it.
        override var hasBytesAvailable: Bool { status == .open }

        override func open() {
            if status == .notOpen { status = .open }
        }

        override func close() {
            status = .closed
        }

        override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
            guard status == .open else { return status == .error ? -1 : 0 }
            do {
                let count = try file.read(at: offset, into: UnsafeMutableRawBufferPointer(start: buffer, count: length))
                offset += Int64(count)
                if count == 0 { status = .atEnd }
                return count
            } catch {
                problem = error
                status = .error
                onProblem(error)
                return -1
            }
        }

        override func getBuffer(
            _ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length: UnsafeMutablePointer<Int>
        ) -> Bool {
            false
        }
    }
#endif

/// Copies a ``BodyFile`` into an `OutputStream`, a piece at a time, on a thread of its own.
///
/// On Apple platforms URLSession reads a body stream through run-loop callbacks that an
/// `InputStream` subclass cannot answer, so the bytes go through the documented alternative: a
/// bound pair of streams, whose output side this writes (blocking while the pair's buffer is full)
/// and whose input side URLSession reads. A failed read is reported to `onProblem` and the output
/// is closed without the rest of the body.
enum BodyFilePump {
    #if !canImport(FoundationNetworking)
        /// The input side of a new bound pair, fed from `file` by a new thread.
        static func start(_ file: BodyFile, onProblem: @escaping @Sendable (BodyFile.Problem) -> Void) -> InputStream {
            var input: InputStream?
            var output: OutputStream?
            Stream.getBoundStreams(withBufferSize: 256 << 10, inputStream: &input, outputStream: &output)
            guard let input, let output else {
                onProblem(.unreadable(ENOMEM))
                return InputStream(data: Data())
            }
            let writer = UncheckedBox(output)
            let thread = Thread { copy(file, into: writer.value, onProblem: onProblem) }
            thread.name = "Courier body file"
            thread.start()
            return input
        }
    #endif

    /// Writes `file` into `output` from its first byte, then closes `output`. Stops early when the
    /// reader went away (a write fails) or a read fails (reported to `onProblem`).
    static func copy(_ file: BodyFile, into output: OutputStream, onProblem: (BodyFile.Problem) -> Void) {
        output.open()
        defer { output.close() }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 1)
        defer { buffer.deallocate() }
        let bytes = buffer.bindMemory(to: UInt8.self)
        var offset: Int64 = 0
        while true {
            let count: Int
            do {
                count = try file.read(at: offset, into: buffer)
            } catch {
                onProblem(error)
                return
            }
            guard count > 0, let base = bytes.baseAddress else { return }
            var written = 0
            while written < count {
                let step = output.write(base + written, maxLength: count - written)
                guard step > 0 else { return }
                written += step
            }
            offset += Int64(count)
        }
    }
}

#if !canImport(FoundationNetworking)
    /// Hands a value that is not `Sendable` to exactly one other thread, which alone uses it after.
    private struct UncheckedBox<Value>: @unchecked Sendable {
        let value: Value
        init(_ value: Value) { self.value = value }
    }
#endif
