import ShelfCore
import ShelfWire

/// What one connection owes its peer in reply, in request order (shared/design.md, invariant 7): one slot per
/// request line, appended when the line is read and filled when its answer is known, in any order; the front slots
/// that are filled are written, each after the notifications it must follow (`ChangeNotificationQueue`). A pure state
/// machine: no I/O, no clock, no locks (the session that owns it runs on the event loop).
struct ReplyQueue {
    /// One slot's answer.
    enum Reply {
        /// A response, JSON without its LF, and the list revision it carries (notifications up to it go first).
        case json([UInt8], revision: Revision?)
        /// A mutation's answer, encoded when it is written (`Session.appendResponse`).
        case mutation(RequestID, Result<MutationResult, ReadingListError>)
        /// Bytes sent as they are, with no revision: a telnet refusal, or the encoded replies of changes made for a
        /// connection that does not watch (nothing can go between them).
        case raw([UInt8])
        /// Nothing is sent: the request was a notification (JSON-RPC 2.0 §4.1).
        case nothing

        /// The revision a reply carries: the notifications queued up to it are written before it.
        var revision: Revision? {
            switch self {
            case .json(_, let revision): revision
            case .mutation(_, let outcome): Session.revision(of: outcome)
            case .raw, .nothing: nil
            }
        }

        /// The bytes it holds against the budget until written: its encoding's; for a mutation's answer, encoded
        /// only when written, the estimate of it (`Session.estimatedReplyBytes`), so that answers a peer does not
        /// read stop the reader as encoded replies do.
        var heldBytes: Int {
            switch self {
            case .json(let bytes, _), .raw(let bytes): bytes.count
            case .mutation(_, let outcome): Session.estimatedReplyBytes(outcome)
            case .nothing: 0
            }
        }
    }

    /// A slot's place: increasing, never reused.
    typealias Slot = UInt64

    private enum State {
        /// The request is being carried out, or its change is being saved; `reserved` bytes (a large id) count
        /// against the budget meanwhile.
        case awaiting(reserved: Int)
        /// Answered; `held` is its `heldBytes`, counted once.
        case filled(Reply, held: Int)
        /// A batch (JSON-RPC 2.0 §6): one line with the responses of its elements, written once all are in.
        case batch(parts: [Reply?], missing: Int, sealed: Bool)
    }

    private var slots: [State] = []
    private var head = 0
    /// The `Slot` of `slots[0]`.
    private var base: Slot = 0
    /// Slots not yet filled (a batch counts until sealed and complete): the requests read but not answered.
    private(set) var awaitingCount = 0
    /// Bytes held by filled slots not yet written, and reserved by awaiting ones (`OutboundBudget`).
    private(set) var heldBytes = 0

    /// True when nothing is owed.
    var isEmpty: Bool { head == slots.count }

    /// Appends a slot for a request just read.
    /// - Parameter reserved: bytes to count until it is filled (its id, when large: `Session.heldIDBytes`).
    mutating func append(reserving reserved: Int = 0) -> Slot {
        slots.append(.awaiting(reserved: reserved))
        awaitingCount += 1
        heldBytes += reserved
        return base + Slot(slots.count - 1)
    }

    /// Appends a slot already filled (an answer known when the line is read).
    mutating func append(_ reply: Reply) {
        let held = reply.heldBytes
        slots.append(.filled(reply, held: held))
        heldBytes += held
    }

    /// Appends a batch's slot with `count` parts, filled with `fill(_:part:with:)` and complete once `seal` is
    /// called and every part is in.
    mutating func appendBatch(count: Int) -> Slot {
        slots.append(.batch(parts: Array(repeating: nil, count: count), missing: count, sealed: false))
        awaitingCount += 1
        return base + Slot(slots.count - 1)
    }

    /// Fills an awaiting slot. Filling a slot twice, or one already written, does nothing.
    mutating func fill(_ slot: Slot, with reply: Reply) {
        guard let index = index(of: slot), case .awaiting(let reserved) = slots[index] else { return }
        let held = reply.heldBytes
        slots[index] = .filled(reply, held: held)
        awaitingCount -= 1
        heldBytes += held - reserved
    }

    /// Fills part `part` of a batch's slot.
    mutating func fill(_ slot: Slot, part: Int, with reply: Reply) {
        guard let index = index(of: slot), case .batch(var parts, let missing, let sealed) = slots[index],
              parts.indices.contains(part), case .none = parts[part]
        else { return }
        parts[part] = reply
        heldBytes += reply.heldBytes
        slots[index] = .batch(parts: parts, missing: missing - 1, sealed: sealed)
        if missing - 1 == 0, sealed { awaitingCount -= 1 }
    }

    /// Marks a batch complete once its parts are in; the parts from `leavingOutFrom` on (elements not carried
    /// out) are left out.
    mutating func seal(_ slot: Slot, leavingOutFrom end: Int) {
        guard let index = index(of: slot), case .batch(var parts, var missing, false) = slots[index] else { return }
        for part in parts.indices where part >= end {
            if case .some(let reply) = parts[part] { heldBytes -= reply.heldBytes } else { missing -= 1 }
            parts[part] = .nothing
        }
        slots[index] = .batch(parts: parts, missing: missing, sealed: true)
        if missing == 0 { awaitingCount -= 1 }
    }

    /// Marks a batch complete with nothing to send, whatever its parts hold.
    mutating func discard(_ slot: Slot) {
        seal(slot, leavingOutFrom: 0)
    }

    /// Appends to `out` the ready replies at the front, each after the queued notifications up to its revision;
    /// once no reply is owed, every queued notification (nothing can be overtaken then), so nothing written goes
    /// back in revision. Stops once `out` holds `limit` bytes or more.
    mutating func write(into out: inout [UInt8], after notifications: inout ChangeNotificationQueue, upTo limit: Int = .max) {
        while out.count < limit, let reply = popReady() {
            if let revision = reply.revision { notifications.take(upTo: revision, into: &out) }
            // Consumed, so a buffer that becomes `out` is not also held by the reply (a large `list` would be copied
            // by the LF appended to it).
            switch consume reply {
            case .json(var json, _):
                if out.isEmpty {
                    swap(&out, &json)
                } else {
                    out.append(contentsOf: json)
                }
                out.append(0x0A)
            case .mutation(let id, let outcome):
                Session.appendResponse(id: id, mutation: outcome, to: &out)
                out.append(0x0A)
            case .raw(var bytes):
                if out.isEmpty { swap(&out, &bytes) } else { out.append(contentsOf: bytes) }
            case .nothing:
                break
            }
        }
        if isEmpty { notifications.take(upTo: nil, into: &out) }
    }

    /// Removes the front slot if it is ready to be written.
    /// - Returns: its reply (a batch's as one `.json` line, or `.nothing` when none of its elements is answered).
    private mutating func popReady() -> Reply? {
        guard head < slots.count else { return nil }
        switch slots[head] {
        case .awaiting: return nil
        case .batch(_, let missing, let sealed) where !sealed || missing > 0: return nil
        default: break
        }
        // Moved out, not copied.
        var taken = State.awaiting(reserved: 0)
        swap(&taken, &slots[head])
        head += 1
        let reply: Reply
        switch consume taken {
        case .filled(let filled, let held):
            heldBytes -= held
            reply = filled
        case .batch(let parts, _, _):
            let filled = parts.compactMap { $0 }
            heldBytes -= filled.reduce(0) { $0 + $1.heldBytes }
            reply = Self.batchLine(filled)
        case .awaiting:
            reply = .nothing
        }
        if head == slots.count {
            // Emptied: the storage is kept for the next requests (no move, no allocation).
            slots.removeAll(keepingCapacity: slots.capacity <= 256)
            base += Slot(head)
            head = 0
        } else if head > 64, head * 2 > slots.count {
            slots.removeFirst(head)
            base += Slot(head)
            head = 0
        }
        return reply
    }

    private func index(of slot: Slot) -> Int? {
        guard slot >= base + Slot(head) else { return nil }
        let index = Int(slot - base)
        return index < slots.count ? index : nil
    }

    /// `[a,b,…]` of the parts that have a response, carrying the highest revision among them; `.nothing` when none
    /// has (JSON-RPC 2.0 §6: a batch of notifications gets no reply at all).
    private static func batchLine(_ parts: [Reply]) -> Reply {
        var line: [UInt8] = []
        var revision: Revision?
        for part in parts {
            let before = line.count
            line.append(line.isEmpty ? UInt8(ascii: "[") : UInt8(ascii: ","))
            switch part {
            case .json(let json, _): line.append(contentsOf: json)
            case .mutation(let id, let outcome): Session.appendResponse(id: id, mutation: outcome, to: &line)
            case .raw, .nothing:
                line.removeSubrange(before...)
                continue
            }
            if let partRevision = part.revision { revision = max(revision ?? partRevision, partRevision) }
        }
        guard !line.isEmpty else { return .nothing }
        line.append(UInt8(ascii: "]"))
        return .json(line, revision: revision)
    }
}
