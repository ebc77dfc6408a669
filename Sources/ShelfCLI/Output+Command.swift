import ShelfCommandLine

extension Output {
    /// Standard output and error for `shelf`: once nobody reads its standard output (`shelf watch | head -1`), it
    /// ends as a Unix command does in a pipeline, by SIGPIPE, instead of working on for nobody.
    public static let command = Output(
        out: { if !StandardStream.output.write($0) { StandardStream.endAsIfByBrokenPipe() } },
        err: { StandardStream.error.write($0) })
}
