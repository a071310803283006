import CacheKit
import Foundation

/// Images for tests of `ImageCache`: whole PNG frames (the signature, an `IHDR` chunk, then the payload,
/// then `IEND`) whose payload a test chooses, so it can tell images apart and read back what it stored.
public enum TestImage {
    /// The bytes before the payload: the signature and an `IHDR` chunk.
    public static let header: [UInt8] =
        ImageFormat.pngSignature + [0, 0, 0, 13] + Array("IHDR".utf8) + [0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0] + [0, 0, 0, 0]

    /// A PNG frame around `payload`.
    public static func png(_ payload: Data) -> Data {
        Data(header) + payload + Data(ImageFormat.pngEnd)
    }

    /// The payload of a frame made by ``png(_:)``.
    public static func payload(of image: Data) -> Data {
        image.dropFirst(header.count).dropLast(ImageFormat.pngEnd.count)
    }
}
