import Testing

@testable import EmberCore

/// The one-call SipHash: the reference vectors of SipHash-2-4 (Aumasson and Bernstein's
/// `vectors.h`: key 00…0f, messages 00, 00 01, …), so the rounds, the padding and the length byte
/// are SipHash's; ChildKey uses the same code with SipHash-1-3's round counts, as `Hasher` does.
@Suite struct SipHashTests {
    private let k0: UInt64 = 0x0706_0504_0302_0100
    private let k1: UInt64 = 0x0F0E_0D0C_0B0A_0908

    private func sip24(_ count: Int) -> UInt64 {
        let message = (0..<count).map { UInt8($0) }
        return message.withUnsafeBytes { SipHash.hash($0, k0: k0, k1: k1, compressionRounds: 2, finalizationRounds: 4) }
    }

    @Test func theReferenceVectorsOfSipHash24() {
        #expect(sip24(0) == 0x726F_DB47_DD0E_0E31)
        #expect(sip24(1) == 0x74F8_39C5_93DC_67FD)
        #expect(sip24(7) == 0xAB02_00F5_8B01_D137)
        #expect(sip24(8) == 0x93F5_F579_9A93_2462)
        #expect(sip24(15) == 0xA129_CA61_49BE_45E5)
        #expect(sip24(16) == 0x3F2A_CC7F_57C2_9BDB)
    }

    @Test func oneWordIsTheEightBytesOfIt() {
        let word: UInt64 = 0x1122_3344_5566_7788
        let bytes = withUnsafeBytes(of: word.littleEndian) { SipHash.hash($0, k0: k0, k1: k1) }
        #expect(SipHash.hash(word: word, k0: k0, k1: k1) == bytes)
    }
}
