/// Generates push IDs: 20-character keys that sort by creation time.
///
/// The first 8 characters are the time in milliseconds in base 64 over the alphabet
/// `-0-9A-Z_a-z` (ASCII order, so IDs sort as strings); the last 12 are 72 random bits. Within
/// one millisecond the random part of the previous ID is incremented, so IDs from one generator
/// are strictly increasing. If the clock goes backwards the generator keeps using the last time
/// it saw, so the order still holds.
public struct PushIDGenerator: Sendable {
    /// The 64 characters, in ASCII order.
    public static let alphabet: [Character] = Array("-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")

    private var lastTime: Int64 = .min
    private var lastRandom: [Int] = Array(repeating: 0, count: 12)

    public init() {}

    /// The next ID for time `now` (ms since the epoch), drawing random bits from `random`.
    /// - Complexity: O(1).
    public mutating func next(now: Int64, using random: inout some RandomNumberGenerator) -> String {
        var time = max(now, lastTime)
        if time == lastTime {
            // Increment the random part, carrying from the right.
            var index = 11
            while index >= 0 && lastRandom[index] == 63 {
                lastRandom[index] = 0
                index -= 1
            }
            if index >= 0 {
                lastRandom[index] += 1
            } else {
                // 2^72 IDs in one millisecond: move to the next millisecond.
                time += 1
                for index in 0..<12 { lastRandom[index] = Int.random(in: 0..<64, using: &random) }
            }
        } else {
            for index in 0..<12 { lastRandom[index] = Int.random(in: 0..<64, using: &random) }
        }
        lastTime = time
        var timeChars = [Character](repeating: "-", count: 8)
        var remaining = time
        for index in stride(from: 7, through: 0, by: -1) {
            timeChars[index] = Self.alphabet[Int(remaining % 64)]
            remaining /= 64
        }
        return String(timeChars) + String(lastRandom.map { Self.alphabet[$0] })
    }

    /// The time (ms since the epoch) encoded in a push ID, or `nil` when `id` is not one.
    public static func timestamp(of id: String) -> Int64? {
        let characters = Array(id)
        guard characters.count == 20 else { return nil }
        var time: Int64 = 0
        for character in characters.prefix(8) {
            guard let digit = alphabet.firstIndex(of: character) else { return nil }
            time = time * 64 + Int64(digit)
        }
        return time
    }
}
