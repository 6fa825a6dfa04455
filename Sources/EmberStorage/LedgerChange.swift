import EmberCore

/// A change to the server's record of answered writes, committed with the data of its tick.
public enum LedgerChange: Sendable, Hashable {
    /// `writer` (of `client`) has been answered up to `sequence`.
    case watermark(writer: String, client: String, sequence: Int64)
    /// Write `sequence` of `writer` was refused with this error.
    case refusal(writer: String, sequence: Int64, DatabaseError)
    /// Nothing of `writer` can be sent again: forget it.
    case forgetWriter(String)
    /// Nothing of `writer` below `below` can be sent again: forget those refusals.
    case forgetRefusals(writer: String, below: Int64)
}
