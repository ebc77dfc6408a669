import ShelfSockets

extension TCPConnection {
    /// Writes `bytes`, closing the connection if the peer has not taken them within `limit`: a client that stops
    /// reading must not hold its connection slot (and the replies owed to it) forever.
    /// - Throws: what `write(_:)` throws; `SocketError.closed` once the deadline closed the connection.
    func write(_ bytes: ArraySlice<UInt8>, within limit: Duration) async throws {
        // Most writes fit in the socket buffer at once: only one that has to wait gets a deadline task.
        let sent = try writeNow(bytes)
        if sent == bytes.count { return }
        let closer = close(after: limit)
        defer { closer.cancel() }
        try await write(bytes.dropFirst(sent))
    }

    /// Sends one last line if the peer takes it within a second, then closes the connection.
    func sayLastLine(_ line: [UInt8]) async {
        try? await write(line[...], within: .seconds(1))
        close()
    }

    /// Closes the connection after `delay` unless the returned task is cancelled first: the one timer behind every
    /// "give the peer a moment, then close" in the server.
    @discardableResult
    func close(after delay: Duration) -> Task<Void, Never> {
        Task {
            try? await Task.sleep(for: delay)
            if !Task.isCancelled { self.close() }
        }
    }
}
