import ShelfSockets

/// Opens many connections and keeps them open, so a script can read the server's memory with them all held.
struct HoldRun {
    let options: BenchOptions
    let count: Int

    /// Opens the connections (each answering `--template` once, if given), reports through `opened`, then holds
    /// them for `--duration` (or until the process is killed) and closes them.
    /// - Throws: `BenchFailure` when not a single connection could be opened.
    func run(opened report: (_ fields: [(String, String)], _ sentence: String) -> Void) async throws(BenchFailure) {
        let clock = ContinuousClock()
        let started = clock.now
        let probe = options.template.map { [RequestTemplate($0).line(counter: options.start)] } ?? []
        let opened = await Connector.open(count, to: options.server, setup: probe, framing: options.framing)
        let took = clock.now - started
        guard !opened.connections.isEmpty else {
            throw BenchFailure("no connection could be opened: \(opened.firstFailure ?? "unknown error")")
        }
        var sentence = "holding \(opened.connections.count) of \(count) connections (opened in "
            + "\(Format.latency(Double(LatencyHistogram.nanoseconds(took))))) for up to "
            + "\(Format.fixed(Double(LatencyHistogram.nanoseconds(options.duration)) / 1e9, 1)) s"
        if let failure = opened.firstFailure { sentence += "; \(opened.failures) failed: \(failure)" }
        report([
            ("requested", "\(count)"),
            ("held", "\(opened.connections.count)"),
            ("failed", "\(opened.failures)"),
            ("open_ms", Format.fixed(Double(LatencyHistogram.nanoseconds(took)) / 1e6, 1)),
        ], sentence)
        try? await Task.sleep(for: options.duration)
        for connection in opened.connections { connection.close() }
    }
}
