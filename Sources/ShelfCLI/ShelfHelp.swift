import ShelfCommandLine
import ShelfWire

/// `shelf`'s help texts (README, "The shelf command").
enum ShelfHelp {
    static let usage = """
        usage: shelf [--server HOST:PORT] [--token-file PATH] [--json] [--timeout SECONDS] [--expect REVISION]
                     [--expect-item REVISION] COMMAND [ARGS]

        Edits the reading list served by shelfd.

        commands:
          add TITLE... [--author A] [--url U] [--tag T]... [--note TEXT]
                                  add an item (says so if one with that title is already there)
          list [QUERY] [--tag T]... [--read|--unread] [--sort KEY] [--limit N]
                                  show the items, or those that match (alias: ls)
          read ID...              mark items read
          unread ID...            mark items unread
          toggle ID...            flip items' read state
          rename ID TITLE...      change an item's title
          edit ID [--title T] [--author A|--no-author] [--url U|--no-url] [--note TEXT|--no-note]
               [--tag T]... [--untag T]...
                                  change several members of an item in one change
          tag ID TAG...           add tags to an item
          untag ID TAG...         remove tags from an item
          note ID [TEXT...]       set an item's note; without TEXT, edit it in $VISUAL or $EDITOR
          rm ID...                remove items (alias: remove)
          show ID                 show every member of one item (alias: get)
          watch                   show the list, then every change as it happens (Ctrl-C stops)
          export [QUERY] [--format F] [list's filters]
                                  write the list to standard output (jsonl, csv or markdown)
          import [--dry-run] FILE add the items of FILE (- for standard input) not already on the list
          ui                      the full-screen live view (also shelf alone, on a terminal)
          info                    show the server's version and the list revision
          ping                    check that the server answers
          help [COMMAND]          show help
          version                 show shelf's version

        ID is a full id or a unique prefix of at least 4 hex digits, as `list` shows them. Commands that
        take several IDs make one change per ID, sent together, and say per ID what happened.

        config: $XDG_CONFIG_HOME/shelf/config, else ~/.config/shelf/config: lines of key = value,
        with server and token-file; an option or the environment overrides it.

        options:
          --server HOST:PORT      the server (default $SHELF_SERVER, else the config file's server,
                                  else 127.0.0.1:\(ProtocolInfo.defaultPort))
          --json                  print each result as one JSON line, and each error as one JSON line
                                  on stderr: {"code","reason","message","data"}
          --expect REVISION       change the list only if it is still at REVISION, the list's revision
                                  that info, list and show print (any change to any item moves it);
                                  else exit 75 and change nothing
          --expect-item REVISION  change the item only if it is still at REVISION, the item's revision
                                  that show prints as "changed at revision" (changes to other items do
                                  not move it); else exit 75 and change nothing
          --token-file PATH       authenticate with the token in PATH (default $SHELF_TOKEN, else the
                                  config file's token-file, else ~/.config/shelf/token if it exists)
          --timeout SECONDS       give up on a server that has not answered after this long (default 10;
                                  0 waits for ever); watch pings that often (not with 0) and retries
          -h, --help              show this help
          --version               show the version

        exit status: 0 ok, 1 the server refused the request or the ID matched no item (or several;
                     with several IDs, the status of the first that failed), 64 bad usage, 69 server
                     unreachable, full or not answering, 75 a conflict (--expect, --expect-item: look
                     again and retry), 76 the reply was not Shelf's protocol
        """

    /// What follows a usage error: the command's usage line and where its help is, or where the commands are.
    static func pointer(for command: String?) -> String {
        guard let command, let text = text(for: command), let usageLine = text.split(separator: "\n").first else {
            return "run 'shelf help' for the commands and options"
        }
        return "\(usageLine)\nrun 'shelf help \(command)' for more"
    }

    /// One sentence for every command that may take --expect and --expect-item.
    private static let conditional = "With --expect REVISION, it does so only if the list is still at that revision; with\n"
        + "--expect-item REVISION, only if the item is (show prints it); else it exits 75 (see shelf help)."

    static let topics: [String: String] = [
        "add": "usage: shelf add [--author A] [--url U] [--tag T]... [--note TEXT] [--expect REVISION] [--] TITLE...\n\nAdds an item. The words are joined with spaces; surrounding whitespace is trimmed.\nTitles must not be blank, hold control characters, or exceed 1000 characters (or 32 KiB of UTF-8).\n--author, --url (http or https), --tag (repeatable) and --note set the other members.\nAn item with the same title (and author, when given; letter case and spacing aside) is added\nanyway, after a note on stderr naming it.\nOptions may come after the command too, so put -- before a title with a word that starts with -:\n  shelf add -- Catch -22\nWith --expect REVISION, it does so only if the list is still at that revision; else it exits 75.",
        "list": "usage: shelf list [QUERY] [--tag T]... [--read|--unread] [--sort KEY] [--limit N]\n\nShows one row per item (short id, [x] read or [ ] unread, title, then the author and #tags\nwhen it has them), cut to the terminal's width (or $COLUMNS), then a summary line with the\nrevision. QUERY keeps the items whose title, author, note, url or tags contain it (letter\ncase and accents aside); --tag keeps those with that tag (all of them, when repeated);\n--sort orders by added (the default), title, author or readAt (a leading - reverses it);\n--limit shows the first N.",
        "read": "usage: shelf read [--expect REVISION|--expect-item REVISION] ID...\n\nMarks each item read, each its own change. Marking a read item read changes nothing.\n" + conditional,
        "unread": "usage: shelf unread [--expect REVISION|--expect-item REVISION] ID...\n\nMarks each item unread, each its own change. Marking an unread item unread changes nothing.\n" + conditional,
        "toggle": "usage: shelf toggle [--expect REVISION|--expect-item REVISION] ID...\n\nFlips each item between read and unread, each its own change.\n" + conditional,
        "rename": "usage: shelf rename [--expect REVISION|--expect-item REVISION] ID [--] TITLE...\n\nChanges the item's title (same rules as add; put -- before a title with a word that starts with -).\n" + conditional,
        "edit": "usage: shelf edit ID [--title T] [--author A|--no-author] [--url U|--no-url] [--note TEXT|--no-note]\n                    [--tag T]... [--untag T]... [--expect REVISION|--expect-item REVISION]\n\nChanges the members named, in one change; --no-author, --no-url and --no-note remove one,\n--tag and --untag add and remove tags. A change that changes nothing prints unchanged.\n" + conditional,
        "tag": "usage: shelf tag [--expect REVISION|--expect-item REVISION] ID TAG...\n\nAdds the tags to the item (stored in lower case; no spaces or commas).\n" + conditional,
        "untag": "usage: shelf untag [--expect REVISION|--expect-item REVISION] ID TAG...\n\nRemoves the tags from the item.\n" + conditional,
        "note": "usage: shelf note [--expect REVISION|--expect-item REVISION] ID [TEXT...]\n\nSets the item's note to TEXT. Without TEXT, opens $VISUAL, else $EDITOR, else vi, on the\ncurrent note, and saves what it leaves, if the item did not change meanwhile (else it exits 75,\nkeeping what was written in its file); a note left empty or unchanged changes nothing\n(edit --no-note removes one).\n" + conditional,
        "rm": "usage: shelf rm [--expect REVISION|--expect-item REVISION] ID...\n\nRemoves each item, each its own change.\n" + conditional,
        "watch": "usage: shelf watch\n\nShows the list, then what each change did as it happens:\n  + 3fa2b1c4 Dune                     added\n  ~ 3fa2b1c4 read: Dune               marked read (unread: marked unread)\n  ~ 3fa2b1c4 title: Dune -> Dune Messiah\n  ~ 3fa2b1c4 author: (none) -> Frank Herbert   (url: likewise)\n  ~ 3fa2b1c4 tags: +scifi -fantasy\n  ~ 3fa2b1c4 note changed: Dune       (note added, note removed)\n  - 3fa2b1c4 Dune                     removed\nOne line per member changed; on a terminal each starts with the local time (HH:MM:SS).\nIf the server goes away, is full, or does not answer within --timeout (it pings the server\nthat often while watching; --timeout 0 turns that off), it retries, waiting up to 5 s\nbetween tries, and resumes where it left off, or lists again if the server restarted\nmeanwhile. A server that is shutting down says so, and it waits for it to come back.\nWhile its output is not read it stops reading the server, which cuts it off once\n--max-outbound-bytes are queued; if more than the server's --history changes came\nmeanwhile (or while it printed the list), it says it fell behind and lists again.\nWith --json it prints the list result and then each raw notification.\nCtrl-C stops it.",
        "show": "usage: shelf show ID\n\nShows every member of one item: its full id, title, author, url, tags, read state and when it\nwas read, when it was added, its note, the revision that last changed it (the one --expect-item\ntakes), and the list's revision (the one --expect takes).\nWith --json it prints the raw get result.",
        "export": "usage: shelf export [--format jsonl|csv|markdown] [QUERY] [--tag T]... [--read|--unread] [--sort KEY]\n\nWrites the list, or the items QUERY, --tag and --read/--unread keep (as list does), read at\none revision, to standard output; the count and that revision\ngo to standard error.\n  jsonl     (default) one item per line, the wire's Item with every member: shelf import reads it back\n            keeping ids, dates and read states\n  csv       RFC 4180 (CRLF), a header row, one column per member; tags joined by spaces; a cell starting\n            with = + - @ (or ') gets a leading ' so a spreadsheet shows it as text (import drops it)\n  markdown  a checklist: - [x] Title — Author",
        "import": "usage: shelf import [--format auto|jsonl|csv|goodreads|text] [--dry-run] FILE|-\n\nAdds the items in FILE (- reads standard input) that are not on the list yet: an item with the\nsame title and author (ignoring case and spacing), or the same id in Shelf's own formats, is\nskipped, so importing again adds nothing twice. Rows that cannot be items are reported with their\nline and the rest go in; the exit status is then 1. A binary or unreadable file is refused first.\n  auto       (default) decide from the content\n  jsonl, csv what shelf export writes; ids kept when free, dates and read states kept\n  goodreads  Goodreads' Export Library CSV: title, author, read state, dates, shelves as tags,\n             private notes\n  text       one title per line\nWith --dry-run it prints what it would add and skip, and changes nothing. Progress shows on\nstandard error when that is a terminal. It ends with: added, skipped, refused, the revision.",
        "ui": "usage: shelf ui\n\nOpens the full-screen live view of the list (shelf with no command does too, on a\nterminal): everyone's changes appear as they happen; the status line shows the revision and\nthe connection. Keys: arrows or j/k move, PgUp/PgDn/Home/End, space or x marks read/unread,\na adds, e edits (title, author, tags, note; Tab moves between them), d removes (y confirms),\n/ searches as you type, t filters by a tag, r cycles all/unread/read, Esc clears the filters,\n? shows the keys, q or Ctrl-C quits. Enter saves, Esc cancels; a refused save keeps your text.\nWhen the server goes away the view stays, read-only, and reconnects. TERM=dumb is refused;\nNO_COLOR turns colours off.",
        "info": "usage: shelf info\n\nShows the server's name, version, protocol and the current list revision.\nWith --json it prints the raw hello result (the revision as a number).",
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
