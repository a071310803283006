import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `GET /avatars/:name` (signed in): a contact's thumbnail, a 100×100 grayscale PNG of about 10 KB drawn
/// from the name (the same name, the same bytes), `private, max-age=86400` with an `ETag`; with
/// `?size=full`, the full-size photo, 400×400 (about 160 KB). A name of letters, digits, `-` and `_` only,
/// ending in `.png`; anything else is a 404.
struct AvatarRoutes {
    let auth: AuthRoutes

    func register(on router: Router<BackendContext>) {
        router.get("avatars/:name") { request, context in
            try auth.authorized(request, for: nil) { _ in
                guard let name = context.parameters.get("name"), name.hasSuffix(".png"),
                    name.dropLast(4).allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }),
                    name.count > 4
                else {
                    return Envelope.failure(.notFound, code: "NOT_FOUND", message: "No such avatar.")
                }
                let side = request.uri.queryParameters["size"] == "full" ? AvatarImage.fullSize : AvatarImage.size
                let png = AvatarImage.png(seed: String(name.dropLast(4)), side: side)
                let etag = "\"\(String(AvatarImage.crc32(png[...]), radix: 16))\""
                if request.headers[.ifNoneMatch] == etag {
                    return Response(status: .notModified, headers: [.eTag: etag, .cacheControl: "private, max-age=86400"])
                }
                return Response(
                    status: .ok, headers: [.contentType: "image/png", .cacheControl: "private, max-age=86400", .eTag: etag],
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: png)))
            }
        }
    }
}

/// A deterministic thumbnail: a PNG written by hand (stored, uncompressed deflate), so the backend needs no
/// image library.
enum AvatarImage {
    /// A thumbnail's side.
    static let size = 100
    /// A full-size photo's side.
    static let fullSize = 400

    /// A `side`×`side` 8-bit grayscale PNG whose pixels follow from `seed`.
    static func png(seed: String, side size: Int = size) -> [UInt8] {
        var hash: UInt32 = 2_166_136_261
        for byte in seed.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        var raw: [UInt8] = []
        raw.reserveCapacity(size * (size + 1))
        for y in 0..<size {
            raw.append(0)  // filter: none
            for x in 0..<size { raw.append(UInt8(truncatingIfNeeded: (UInt32(x * y) &+ hash) >> UInt32((x + y) % 8))) }
        }
        var header: [UInt8] = []
        header += bigEndian(UInt32(size)) + bigEndian(UInt32(size))
        header += [8, 0, 0, 0, 0]  // 8 bits, grayscale, deflate, adaptive filtering, no interlace
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", zlibStored(raw))
            + chunk("IEND", [])
    }

    /// `data` in a zlib stream of stored deflate blocks.
    private static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65_535, data.count - offset)
            let isLast = offset + count == data.count
            out.append(isLast ? 1 : 0)
            out += [UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            out += data[offset..<offset + count]
            offset += count
        } while offset < data.count
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return out + bigEndian(b << 16 | a)
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + typed + bigEndian(crc32(typed[...]))
    }

    static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}
