import Foundation

/// The image formats ``ImageCache`` recognises by their first bytes: a response that is none of them
/// (an HTML error page served with 200, a truncated download) is never stored.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable {
    /// `89 50 4E 47 0D 0A 1A 0A`.
    case png
    /// `FF D8 FF`.
    case jpeg
    /// `GIF87a` or `GIF89a`.
    case gif
    /// `RIFF`, a size, then `WEBP`.
    case webp
    /// An ISO media file whose brand is HEIC, HEIF or AVIF (`ftypheic`, `ftypmif1`, `ftypavif`, …).
    case heif

    /// The format `data` is, or `nil` when it is not an image this cache keeps. Its first bytes name the
    /// format, and its frame must be whole (security review two, finding 13): a PNG's header chunk first
    /// and its `IEND` chunk last, a JPEG's end-of-image marker, a GIF's trailer, a WebP's RIFF size equal to
    /// the bytes received, an ISO media file's `ftyp` box within them. A page whose first bytes only look
    /// like an image, or a truncated download, is none.
    public init?(sniffing data: Data) {
        let bytes = [UInt8](data.prefix(16))
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && Array(bytes[offset..<offset + prefix.count]) == prefix
        }
        func ends(_ suffix: [UInt8]) -> Bool { data.count >= suffix.count && Array(data.suffix(suffix.count)) == suffix }
        if starts(Self.pngSignature) {
            guard starts([0, 0, 0, 13] + Array("IHDR".utf8), at: 8), ends(Self.pngEnd) else { return nil }
            self = .png
        } else if starts([0xFF, 0xD8, 0xFF]) {
            guard ends([0xFF, 0xD9]) else { return nil }
            self = .jpeg
        } else if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) {
            guard ends([0x3B]) else { return nil }
            self = .gif
        } else if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) {
            let size = bytes[4..<8].reversed().reduce(0) { $0 << 8 | Int($1) }
            guard size + 8 == data.count else { return nil }
            self = .webp
        } else if starts(Array("ftyp".utf8), at: 4),
            Self.heifBrands.contains(where: { starts(Array($0.utf8), at: 8) })
        {
            let box = bytes[0..<4].reduce(0) { $0 << 8 | Int($1) }
            guard box >= 16, box <= data.count else { return nil }
            self = .heif
        } else {
            return nil
        }
    }

    /// A PNG's first eight bytes.
    public static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// A PNG's last chunk: `IEND`, empty, with its CRC.
    public static let pngEnd: [UInt8] = [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]

    private static let heifBrands = ["heic", "heix", "hevc", "heim", "heis", "mif1", "msf1", "avif", "avis"]
}
