import ShelfSockets

/// One connection of a load run: keeps `pipeline` requests in flight and sends one new request per reply.
struct LoadConnection {
    let connection: TCPConnection
    let index: Int
    let plan: LoadPlan

    /// Runs until the plan says stop, the task is cancelled (the run's deadline) or the connection fails; never
    /// throws, the reason for an early end is in `failure`. Closes the connection at the end.
    func run() async -> ConnectionStats {
        var stats = ConnectionStats()
        let clock = ContinuousClock()
        let quota = plan.quota(for: index)
        var framer = ReplyFramer(plan.framing)
        var inFlight = SendTimes(capacity: plan.pipeline, now: clock.now)
        var buffer: [UInt8] = []
        var sent = 0
        var sending = quota > 0
        defer { connection.close() }
        do {
            if sending {
                buffer.removeAll(keepingCapacity: true)
                let now = clock.now
                while sent < min(plan.pipeline, quota) {
                    plan.template.append(counter: plan.counter(connection: index, request: sent), to: &buffer)
                    inFlight.push(now)
                    sent += 1
                }
                try await connection.write(buffer)
            }
            while inFlight.count > 0 {
                let chunk = try await connection.read()
                guard !chunk.isEmpty else {
                    stats.failure = "the server closed the connection"
                    break
                }
                stats.bytes += chunk.count
                let counted = try framer.count(chunk)
                guard counted.replies > 0 else { continue }
                guard counted.replies <= inFlight.count else {
                    stats.failure = "more replies than requests (a notification or a stray line?)"
                    break
                }
                let now = clock.now
                let measured = now >= plan.measureFrom && plan.stopAt.map { now < $0 } ?? true
                for _ in 0..<counted.replies {
                    let sentAt = inFlight.pop()
                    if measured { stats.latency.record(now - sentAt) }
                }
                if measured { stats.ops += counted.replies }
                stats.replies += counted.replies
                stats.errors += counted.errors
                stats.lastReply = now
                if let stopAt = plan.stopAt, now >= stopAt {
                    sending = false
                    if !plan.drain { break }
                }
                if sending {
                    let more = min(counted.replies, quota - sent)
                    if more > 0 {
                        buffer.removeAll(keepingCapacity: true)
                        for _ in 0..<more {
                            plan.template.append(counter: plan.counter(connection: index, request: sent), to: &buffer)
                            inFlight.push(now)
                            sent += 1
                        }
                        try await connection.write(buffer)
                    }
                }
            }
        } catch is CancellationError {
            // The run's deadline: what was counted so far stands.
        } catch {
            stats.failure = "\(error)"
        }
        return stats
    }
}
