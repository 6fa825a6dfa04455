/// The documented limits of the data model, enforced wherever data enters Ember.
///
/// They follow the Firebase Realtime Database's published limits: a key is 1 to 768 bytes of
/// UTF-8; every path in the tree is less than 32 levels deep (so at most 31 keys); a string value
/// is at most 10 MB of UTF-8. A violation is a ``DatabaseError`` that names the path and the rule.
public enum Limits {
    /// The longest key, in bytes of UTF-8.
    public static let maxKeyBytes = 768
    /// The most keys a path may have: paths must be less than 32 levels deep.
    public static let maxDepth = 31
    /// The longest string value, in bytes of UTF-8 (10 MB).
    public static let maxStringBytes = 10 * 1024 * 1024
    /// The longest an auth token may hold, in milliseconds: 10 years (of 365 days).
    public static let maxTokenLifetime: Int64 = 315_360_000_000
}
