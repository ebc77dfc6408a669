extension HostPort {
    /// Parses `HOST:PORT`; IPv6 hosts must be in brackets (`[::1]:7453`).
    ///
    /// - Parameter text: the address, e.g. `127.0.0.1:7453`, `[::1]:7453`, `localhost:0`.
    /// - Throws: `SocketError.invalidAddress` for an empty host, a missing or non-decimal port, a port above 65535,
    ///   an unbracketed IPv6 address, stray brackets, whitespace or control characters.
    public init(parsing text: String) throws(SocketError) {
        let invalid = SocketError.invalidAddress(text)
        guard !text.isEmpty, !text.contains(where: Self.isForbidden) else { throw invalid }

        let hostPart: Substring
        let portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw invalid }
            hostPart = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.first == ":" else { throw invalid }
            portPart = rest.dropFirst()
            guard hostPart.contains(":") else { throw invalid }
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw invalid }
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
            guard !hostPart.contains(":") else { throw invalid }
        }
        guard !hostPart.isEmpty, !hostPart.contains("["), !hostPart.contains("]") else { throw invalid }
        guard let port = Self.parsePort(portPart) else { throw invalid }
        self.init(host: String(hostPart), port: port)
    }

    /// Whitespace and control characters never belong in an address.
    private static func isForbidden(_ character: Character) -> Bool {
        character.isWhitespace
            || character.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// 1 to 5 ASCII digits, value 0...65535.
    private static func parsePort(_ text: Substring) -> UInt16? {
        guard (1...5).contains(text.count), text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return UInt16(text)
    }
}
