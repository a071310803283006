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

    /// The format `data` starts with, or `nil` when it is not an image this cache keeps.
    public init?(sniffing data: Data) {
        let bytes = [UInt8](data.prefix(16))
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && Array(bytes[offset..<offset + prefix.count]) == prefix
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if starts([0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) {
            self = .gif
        } else if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) {
            self = .webp
        } else if starts(Array("ftyp".utf8), at: 4),
            Self.heifBrands.contains(where: { starts(Array($0.utf8), at: 8) })
        {
            self = .heif
        } else {
            return nil
        }
    }

    private static let heifBrands = ["heic", "heix", "hevc", "heim", "heis", "mif1", "msf1", "avif", "avis"]
}
