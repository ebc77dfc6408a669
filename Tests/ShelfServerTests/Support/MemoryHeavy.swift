import Testing

/// The suites that hold tens of megabytes at once (huge replies, floods) run one after another, each still beside
/// the light suites: `SlowConsumerTests` bounds the test process's resident memory, which must measure the server
/// under test, not a neighbour's 6 MB replies.
@Suite(.serialized) enum MemoryHeavy {}
