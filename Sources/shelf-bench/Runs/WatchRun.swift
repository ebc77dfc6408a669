import ShelfSockets

/// Watchers and a writer: `watchers` connections watch while the load connections write for `--duration`; then
/// the run waits (at most 30 s) for every watcher to catch up and checks each saw every acknowledged write.
struct WatchRun {
    let options: BenchOptions
    let watchers: Int

    /// - Throws: `BenchFailure` when the connections cannot be opened, or the watchers do not all start watching
    ///   within 30 s.
    func run() async throws(BenchFailure) -> WatchReport {
        let setup = options.setupLines.map { RequestTemplate($0).line(counter: options.start) }
        let watching = try await Connector.openAll(watchers, to: options.server, setup: setup, framing: .line)
        let writers: [TCPConnection]
        do {
            writers = try await Connector.openAll(options.connections, to: options.server, setup: setup, framing: .line)
        } catch {
            for connection in watching { connection.close() }
            throw error
        }
        defer { for connection in watching { connection.close() } }
        let progress = watching.map { _ in WatcherProgress() }
        let watchLine = RequestTemplate(options.watchLine).line(counter: options.start)
        let clock = ContinuousClock()

        return try await withTaskGroup(of: Void.self) { group -> Result<WatchReport, BenchFailure> in
            for (connection, progress) in zip(watching, progress) {
                group.addTask { await Watcher(connection: connection, watchLine: watchLine, progress: progress).run() }
            }
            defer { group.cancelAll() }
            let allWatching = await Self.poll(clock: clock, limit: .seconds(30)) {
                progress.allSatisfy { $0.ready.load(ordering: .acquiring) || $0.stopped.load(ordering: .acquiring) }
            }
            guard allWatching else {
                for connection in writers { connection.close() }
                return .failure(BenchFailure("the watchers did not all start watching within 30 s"))
            }
            var writerOptions = options
            writerOptions.warmup = .zero
            let load = await LoadRun(options: writerOptions, drain: true).run(on: writers)
            let acked = load.total.successes
            let catchUpStart = clock.now
            _ = await Self.poll(clock: clock, limit: .seconds(30)) {
                progress.allSatisfy {
                    $0.received.load(ordering: .acquiring) >= acked || $0.stopped.load(ordering: .acquiring)
                }
            }
            return .success(WatchReport(
                writer: load, acked: acked, catchUp: clock.now - catchUpStart,
                watchers: progress.map(WatchReport.Watcher.init(progress:))))
        }.get()
    }

    /// Checks `condition` every 10 ms until it holds (true) or `limit` passes (false).
    private static func poll(
        clock: ContinuousClock, limit: Duration, _ condition: () -> Bool
    ) async -> Bool {
        let deadline = clock.now + limit
        while !condition() {
            guard clock.now < deadline, !Task.isCancelled else { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }
}
