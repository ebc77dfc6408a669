import Glibc

/// Number formatting for the result lines (no Foundation).
enum Format {
    /// `value` with exactly `digits` decimals: `fixed(3.14159, 2)` is `3.14`.
    static func fixed(_ value: Double, _ digits: Int) -> String {
        guard value.isFinite else { return "0" }
        let scale = pow(10.0, Double(digits))
        let scaled = (abs(value) * scale).rounded()
        let whole = Int(scaled / scale)
        let fraction = Int(scaled - Double(whole) * scale)
        let sign = value < 0 && scaled > 0 ? "-" : ""
        guard digits > 0 else { return "\(sign)\(whole)" }
        let fractionText = String(fraction)
        return "\(sign)\(whole)." + String(repeating: "0", count: max(0, digits - fractionText.count)) + fractionText
    }

    /// A rounded whole number with thousands separators: `12,345`.
    static func grouped(_ value: Double) -> String {
        let digits = String(Int(value.rounded()))
        var out = ""
        for (index, character) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0, character != "-" { out.append(",") }
            out.append(character)
        }
        return out
    }

    /// Nanoseconds as `850 us` or `12.3 ms`.
    static func latency(_ nanoseconds: Double) -> String {
        if nanoseconds < 1_000_000 { return "\(fixed(nanoseconds / 1e3, 0)) us" }
        return "\(fixed(nanoseconds / 1e6, 2)) ms"
    }

    /// `key=value` pairs joined by spaces, after a leading `mode=…`.
    static func keyValues(mode: String, _ fields: [(String, String)]) -> String {
        (["mode=\(mode)"] + fields.map { "\($0.0)=\($0.1)" }).joined(separator: " ")
    }
}
