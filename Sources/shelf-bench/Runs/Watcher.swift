import ShelfSockets

/// One watching connection: sends the watch line, then counts `changed` notifications and checks that their
/// revisions follow each other without a gap.
struct Watcher {
    let connection: TCPConnection
    let watchLine: [UInt8]
    let progress: WatcherProgress

    /// Runs until cancelled or the connection ends; never throws (the reason is in `progress`).
    func run() async {
        var framer = LineReplyFramer()
        var answered = false
        var failure: String?
        var last = -1
        var received = 0
        var gaps = 0
        do {
            try await connection.write(watchLine)
            while failure == nil {
                let chunk = try await connection.read()
                guard !chunk.isEmpty else {
                    progress.stop("the server closed the connection")
                    return
                }
                chunk.withUnsafeBufferPointer { chunk in
                    framer.consume(chunk) { line in
                        if !answered {
                            answered = true
                            guard !ReplyLine.isError(line), let revision = ReplyLine.revision(line) else {
                                failure = "watch was not answered with a revision: "
                                    + String(decoding: line, as: UTF8.self)
                                return
                            }
                            last = revision
                            progress.startRevision.store(revision, ordering: .relaxed)
                            progress.ready.store(true, ordering: .releasing)
                        } else if ReplyLine.isChangedNotification(line) {
                            let revision = ReplyLine.revision(line) ?? -1
                            if revision != last + 1 { gaps += 1 }
                            last = revision
                            received += 1
                        } else if failure == nil {
                            failure = "unexpected line: " + String(decoding: line, as: UTF8.self)
                        }
                    }
                }
                progress.gaps.store(gaps, ordering: .relaxed)
                progress.lastRevision.store(last, ordering: .relaxed)
                progress.received.store(received, ordering: .releasing)
            }
            if let failure { progress.stop(failure) }
        } catch is CancellationError {
            // The run is over.
        } catch {
            progress.stop("\(error)")
        }
    }
}
