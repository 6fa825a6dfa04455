/// The children of a small object kept flat in one allocation: what most objects of real data
/// are (a user's profile, a message), read from the store by the thousand.
///
/// A ``Node`` object keeps its children in a ``SortedTree``: a tree node (a class), an array of
/// entries of 40 bytes, and a heap string for each text over 15 bytes, about 400 bytes for a
/// message of three leaves. Packed, the same message is one buffer of about 100: each child is
/// its key's length and UTF-8, then a tag byte and the value (an integer as a zigzag varint, a
/// double as 8 bytes, a string as its length and UTF-8, an object packed the same way, nested);
/// lengths are LEB128 varints. Children are in key order (``ChildKey/compare(_:_:)``).
///
/// Only objects whose children carry no priority, of at most ``maximumCount`` children and
/// ``maximumBytes`` bytes, are packed (``pack(_:)``); the node itself may carry one (its
/// storage is wrapped, as any). A packed node is never changed: a change first turns it into a
/// tree of its children (``tree``). Reading one child decodes only the keys before it and the
/// child.
///
/// Layout of the allocation (a `ManagedBuffer`, ``Buffer``): the header (the number of
/// children, the number of bytes), then the bytes. Immutable once made, so it is shared
/// between threads as a value is.
@usableFromInline
struct PackedChildren: @unchecked Sendable {
    /// The number of children and of bytes.
    struct Header {
        var count: Int32
        var length: Int32
    }

    /// The one allocation.
    final class Buffer: ManagedBuffer<Header, UInt8> {}

    private let buffer: Buffer
    private var header: Header { buffer.header }

    private init(buffer: Buffer) {
        self.buffer = buffer
    }

    /// Whether both are the same allocation.
    static func === (lhs: PackedChildren, rhs: PackedChildren) -> Bool { lhs.buffer === rhs.buffer }

    /// The most children a packed object holds (``SortedTree/maxEntries``: one tree node).
    static let maximumCount = 32
    /// The most bytes a packed object takes.
    static let maximumBytes = 4096

    private enum Tag: UInt8 {
        case falseValue = 0, trueValue, integer, double, string, object
    }

    /// The number of children.
    /// - Complexity: O(1).
    var count: Int { Int(header.count) }

    // MARK: Packing

    /// The children packed, or `nil` when they cannot be: a child with a priority (or a
    /// server value, or an object that is not packed itself), more than ``maximumCount``
    /// children, more than ``maximumBytes`` bytes. The children need not be in key order;
    /// they must have distinct keys, none empty.
    /// - Complexity: O(n log n + b) for n children and b bytes.
    static func pack(_ children: [(ChildKey, Node)]) -> PackedChildren? {
        guard !children.isEmpty, children.count <= maximumCount else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(children.count * 16)
        let sorted = children.sorted { ChildKey.compare($0.0, $1.0) < 0 }
        for (key, node) in sorted {
            guard node.priority == nil else { return nil }
            appendText(key.name, to: &bytes)
            switch node.storage {
            case .leaf(let value):
                switch value {
                case .bool(let flag): bytes.append(flag ? Tag.trueValue.rawValue : Tag.falseValue.rawValue)
                case .int(let integer):
                    bytes.append(Tag.integer.rawValue)
                    appendVarint(UInt64(bitPattern: (integer << 1) ^ (integer >> 63)), to: &bytes)
                case .double(let double):
                    bytes.append(Tag.double.rawValue)
                    var bits = double.bitPattern
                    for _ in 0..<8 {
                        bytes.append(UInt8(truncatingIfNeeded: bits))
                        bits >>= 8
                    }
                case .string(let text):
                    bytes.append(Tag.string.rawValue)
                    appendText(text, to: &bytes)
                case .deferred:
                    return nil
                }
            case .packed(let packed):
                bytes.append(Tag.object.rawValue)
                appendVarint(UInt64(packed.count), to: &bytes)
                appendVarint(UInt64(packed.header.length), to: &bytes)
                packed.withBytes { bytes.append(contentsOf: $0) }
            case .empty, .children, .indexed, .prioritized:
                return nil
            }
            if bytes.count > maximumBytes { return nil }
        }
        return bytes.withUnsafeBufferPointer { make(count: sorted.count, bytes: $0) }
    }

    private static func make(count: Int, bytes: UnsafeBufferPointer<UInt8>) -> PackedChildren {
        let buffer = Buffer.create(minimumCapacity: bytes.count) { _ in Header(count: Int32(count), length: Int32(bytes.count)) }
        buffer.withUnsafeMutablePointerToElements { elements in
            if let source = bytes.baseAddress { elements.initialize(from: source, count: bytes.count) }
        }
        // `create` allocates an instance of the class it is called on.
        return PackedChildren(buffer: unsafeDowncast(buffer, to: Buffer.self))
    }

    private static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    private static func appendText(_ text: String, to bytes: inout [UInt8]) {
        appendVarint(UInt64(text.utf8.count), to: &bytes)
        bytes.append(contentsOf: text.utf8)
    }

    // MARK: Reading

    /// The child at `key`, if any.
    /// - Complexity: O(b) in the bytes before it (decoding only the keys on the way).
    func child(_ key: ChildKey) -> Node? {
        var key = key.name
        return key.withUTF8 { wanted in
            withBytes { bytes in
                var reader = Reader(bytes: bytes)
                for _ in 0..<count {
                    let name = reader.text()
                    if name.elementsEqual(wanted) { return reader.value() }
                    reader.skipValue()
                }
                return nil
            }
        }
    }

    /// Every child, in key order.
    /// - Complexity: O(b).
    var entries: [(ChildKey, Node)] {
        withBytes { bytes in
            var reader = Reader(bytes: bytes)
            var entries: [(ChildKey, Node)] = []
            entries.reserveCapacity(count)
            for _ in 0..<count {
                let name = String(decoding: reader.text(), as: UTF8.self)
                entries.append((ChildKey(unchecked: name), reader.value()))
            }
            return entries
        }
    }

    /// The children as a tree: what a packed node becomes to be changed, or walked from a
    /// position.
    /// - Complexity: O(b + n log n).
    var tree: SortedTree<ChildKey, Node> {
        SortedTree(sorted: entries.lazy.map { (key: $0.0, value: $0.1) })
    }

    /// Whether both hold the same bytes (then the same children; different bytes may still
    /// hold equal children: an integer and the same number as a double).
    func hasSameBytes(as other: PackedChildren) -> Bool {
        guard header.count == other.header.count, header.length == other.header.length else { return false }
        return withBytes { mine in other.withBytes { theirs in mine.elementsEqual(theirs) } }
    }

    private func withBytes<T>(_ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
        let length = Int(header.length)
        return try buffer.withUnsafeMutablePointerToElements { try body(UnsafeBufferPointer(start: $0, count: length)) }
    }

    /// Reads the bytes in order.
    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var offset = 0

        mutating func varint() -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let byte = bytes[offset]
                offset += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
        }

        mutating func text() -> UnsafeBufferPointer<UInt8> {
            let length = Int(varint())
            defer { offset += length }
            return UnsafeBufferPointer(rebasing: bytes[offset..<(offset + length)])
        }

        mutating func value() -> Node {
            let tag = Tag(rawValue: bytes[offset])!
            offset += 1
            switch tag {
            case .falseValue: return Node(.bool(false))
            case .trueValue: return Node(.bool(true))
            case .integer:
                let zigzag = varint()
                return Node(.int(Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)))
            case .double:
                var bits: UInt64 = 0
                for index in 0..<8 { bits |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
                offset += 8
                return Node(.double(Double(bitPattern: bits)))
            case .string:
                return Node(.string(String(decoding: text(), as: UTF8.self)))
            case .object:
                let count = Int(varint())
                let length = Int(varint())
                defer { offset += length }
                return Node(storage: .packed(PackedChildren.make(count: count, bytes: UnsafeBufferPointer(rebasing: bytes[offset..<(offset + length)]))))
            }
        }

        mutating func skipValue() {
            let tag = Tag(rawValue: bytes[offset])!
            offset += 1
            switch tag {
            case .falseValue, .trueValue: break
            case .integer: _ = varint()
            case .double: offset += 8
            case .string: _ = text()
            case .object:
                _ = varint()
                offset += Int(varint())
            }
        }
    }
}
