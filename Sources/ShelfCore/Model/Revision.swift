/// A list revision: 0 for a new store, +1 for each accepted change, stored with the data and never reused for a
/// different accepted change (shared/design.md, invariant 3).
public typealias Revision = UInt64
