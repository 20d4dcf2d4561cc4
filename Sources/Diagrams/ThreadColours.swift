import TraceLog

/// The colour every figure gives a thread of a trace, for other views of the same trace
/// (`marbles view`) to agree with the figures: it follows the thread's logical name alone
/// (`main` blue, `background` orange, `network` green, `ui` sky blue, any other name a
/// colour chosen by a stable hash of it).
public enum ThreadColours {
    /// The name figures show for `thread`: its scheduler when it has one, else its own name.
    public static func name(of thread: ThreadRecord) -> String {
        ThreadLabel.of(thread)
    }

    /// The fill colour (`#rrggbb`) of marbles delivered on a thread named `name`.
    public static func colour(named name: String) -> String {
        MarbleLayout.colour(named: name).fill
    }
}
