import ShelfCommandLine
import ShelfWire

/// `shelf`'s help texts (README, "The shelf command").
enum ShelfHelp {
    static let usage = """
        usage: shelf [--server HOST:PORT] [--token-file PATH] [--json] [--timeout SECONDS] COMMAND [ARGS]

        Edits the reading list served by shelfd.

        commands:
          add TITLE...            add an item
          list [--read|--unread]  show the items (alias: ls)
          read ID                 mark an item read
          unread ID               mark an item unread
          toggle ID               flip an item's read state
          rename ID TITLE...      change an item's title
          rm ID                   remove an item (alias: remove)
          show ID                 show one item: full id, title, read state, when added (alias: get)
          watch                   show the list, then every change as it happens (Ctrl-C stops)
          ui                      the full-screen live view (also shelf alone, on a terminal)
          info                    show the server's version and the list revision
          ping                    check that the server answers
          help [COMMAND]          show help
          version                 show shelf's version

        ID is a full id or a unique prefix of at least 4 hex digits, as `list` shows them.

        config: $XDG_CONFIG_HOME/shelf/config, else ~/.config/shelf/config: lines of key = value,
        with server and token-file; an option or the environment overrides it.

        options:
          --server HOST:PORT      the server (default $SHELF_SERVER, else the config file's server,
                                  else 127.0.0.1:\(ProtocolInfo.defaultPort))
          --json                  print each result as one JSON line
          --expect REVISION       change the list only if it is still at REVISION, the list's revision
                                  that info, list and show print (any change to any item moves it);
                                  else exit 1 and change nothing
          --token-file PATH       authenticate with the token in PATH (default $SHELF_TOKEN, else the
                                  config file's token-file, else ~/.config/shelf/token if it exists)
          --timeout SECONDS       give up on a server that has not answered after this long (default 10;
                                  0 waits for ever); watch pings that often (not with 0) and retries
          -h, --help              show this help
          --version               show the version

        exit status: 0 ok, 1 the server refused the request or the ID matched no item (or several),
                     64 bad usage, 69 server unreachable, full or not answering, 76 the reply was not Shelf's
                     protocol
        """

    /// What follows a usage error: the command's usage line and where its help is, or where the commands are.
    static func pointer(for command: String?) -> String {
        guard let command, let text = text(for: command), let usageLine = text.split(separator: "\n").first else {
            return "run 'shelf help' for the commands and options"
        }
        return "\(usageLine)\nrun 'shelf help \(command)' for more"
    }

    static let topics: [String: String] = [
        "add": "usage: shelf add [--expect REVISION] [--] TITLE...\n\nAdds an item. The words are joined with spaces; surrounding whitespace is trimmed.\nTitles must not be blank, hold control characters, or exceed 1000 characters (or 32 KiB of UTF-8).\nOptions may come after the command too, so put -- before a title with a word that starts with -:\n  shelf add -- Catch -22\nWith --expect REVISION, it does so only if the list is still at that revision (see shelf help).",
        "list": "usage: shelf list [--read|--unread]\n\nShows one row per item (short id, [x] read or [ ] unread, title) in the order they were added,\nthen a summary line with the revision.",
        "read": "usage: shelf read [--expect REVISION] ID\n\nMarks the item read. Marking a read item read changes nothing.\nWith --expect REVISION, it does so only if the list is still at that revision (see shelf help).",
        "unread": "usage: shelf unread [--expect REVISION] ID\n\nMarks the item unread. Marking an unread item unread changes nothing.\nWith --expect REVISION, it does so only if the list is still at that revision (see shelf help).",
        "toggle": "usage: shelf toggle [--expect REVISION] ID\n\nFlips the item between read and unread.\nWith --expect REVISION, it does so only if the list is still at that revision (see shelf help).",
        "rename": "usage: shelf rename [--expect REVISION] ID [--] TITLE...\n\nChanges the item's title (same rules as add; put -- before a title with a word that starts with -).\nWith --expect REVISION, it does so only if the list is still at that revision (see shelf help).",
        "rm": "usage: shelf rm [--expect REVISION] ID\n\nRemoves the item.\nWith --expect REVISION, it does so only if the list is still at that revision (see shelf help).",
        "watch": "usage: shelf watch\n\nShows the list, then one line per change as it happens:\n  + 3fa2b1c4 Dune          added\n  ~ 3fa2b1c4 [x] Dune      read state or title changed\n  - 3fa2b1c4 Dune          removed\nIf the server goes away, is full, or does not answer within --timeout (it pings the server\nthat often while watching; --timeout 0 turns that off), it retries, waiting up to 5 s\nbetween tries, and resumes where it left off, or lists again if the server restarted\nmeanwhile. A server that is shutting down says so, and it waits for it to come back.\nWhile its output is not read it stops reading the server, which cuts it off once\n--max-outbound-bytes are queued; if more than the server's --history changes came\nmeanwhile (or while it printed the list), it says it fell behind and lists again.\nWith --json it prints the list result and then each raw notification.\nCtrl-C stops it.",
        "show": "usage: shelf show ID\n\nShows one item: its full id, title, read state, when it was added, and the revision that\nlast changed it, and the list's revision (the one --expect takes).\nWith --json it prints the raw get result.",
        "ui": "usage: shelf ui\n\nOpens the full-screen live view of the list (shelf with no command does too, on a\nterminal): everyone's changes appear as they happen; the status line shows the revision and\nthe connection. Keys: arrows or j/k move, PgUp/PgDn/Home/End, space or x marks read/unread,\na adds, e edits (title, author, tags, note; Tab moves between them), d removes (y confirms),\n/ searches as you type, t filters by a tag, r cycles all/unread/read, Esc clears the filters,\n? shows the keys, q or Ctrl-C quits. Enter saves, Esc cancels; a refused save keeps your text.\nWhen the server goes away the view stays, read-only, and reconnects. TERM=dumb is refused;\nNO_COLOR turns colours off.",
        "info": "usage: shelf info\n\nShows the server's name, version, protocol and the current list revision.",
        "ping": "usage: shelf ping\n\nPrints pong when the server answers.",
        "help": "usage: shelf help [COMMAND]\n\nShows help for shelf or for one command.",
        "version": "usage: shelf version\n\nShows shelf's version and the protocol version it speaks (as --version does).",
    ]

    /// Help for `topic` (a command name or alias), or `nil` when there is no such command.
    static func text(for topic: String?) -> String? {
        guard let topic else { return usage }
        let aliases = ["ls": "list", "remove": "rm", "get": "show"]
        return topics[aliases[topic] ?? topic]
    }
}
