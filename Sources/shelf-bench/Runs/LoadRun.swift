import ShelfSockets

/// A closed-loop load run: connect, set up, run every connection's loop, merge what they saw.
struct LoadRun {
    let options: BenchOptions
    /// Keep reading after the end until every request sent is answered (the watch mode's writer needs the exact
    /// number of acknowledged writes).
    var drain = false

    /// - Throws: `BenchFailure` when the connections cannot be opened or set up.
    func run() async throws(BenchFailure) -> LoadReport {
        let setup = options.setupLines.map { RequestTemplate($0).line(counter: options.start) }
        let connections = try await Connector.openAll(
            options.connections, to: options.server, setup: setup, framing: options.framing)
        return await run(on: connections)
    }

    /// Runs the load on connections that are already open and set up; closes them.
    func run(on connections: [TCPConnection]) async -> LoadReport {
        let clock = ContinuousClock()
        let started = clock.now
        let counted = options.requests != nil
        let measureFrom = counted ? started : started + options.warmup
        let stopAt: ContinuousClock.Instant? = counted ? nil : measureFrom + options.duration
        let plan = LoadPlan(
            template: RequestTemplate(options.template ?? BenchOptions.defaultTemplate),
            framing: options.framing,
            connections: connections.count,
            pipeline: options.pipeline,
            start: options.start,
            measureFrom: measureFrom,
            stopAt: stopAt,
            totalRequests: options.requests,
            drain: drain)
        // Past this, every connection still running is cancelled (a stalled server cannot hold the run).
        let deadline: ContinuousClock.Instant
        if let stopAt {
            deadline = stopAt + (drain ? .seconds(30) : .zero)
        } else {
            deadline = started + options.effectiveTimeout
        }

        var total = ConnectionStats()
        var failed = 0
        await withTaskGroup(of: ConnectionStats?.self) { group in
            for (index, connection) in connections.enumerated() {
                // On the reactor's event loop, as shelfd's sessions: the generator must cost less than the servers.
                group.addTask(executorPreference: connection.executor) {
                    await LoadConnection(connection: connection, index: index, plan: plan).run()
                }
            }
            group.addTask {
                try? await Task.sleep(until: deadline, clock: clock)
                return nil
            }
            var finished = 0
            while let result = await group.next() {
                guard let stats = result else {
                    group.cancelAll()
                    continue
                }
                total.merge(stats)
                if stats.failure != nil { failed += 1 }
                finished += 1
                if finished == connections.count { group.cancelAll() }
            }
        }
        let window: Duration
        if let stopAt {
            window = stopAt - measureFrom
        } else {
            window = (total.lastReply ?? started) - started
        }
        return LoadReport(
            connections: connections.count, pipeline: options.pipeline, window: window, total: total,
            failedConnections: failed)
    }
}
