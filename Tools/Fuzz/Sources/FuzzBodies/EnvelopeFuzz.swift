import APICore
import Foundation

/// The REST error envelope (`{"success":false,"error":{"code":…,"message":…}}`) read from any bytes.
public enum EnvelopeFuzz {
    /// One input: any body with any status gives a typed error whose description can be printed.
    public static func run(_ data: Data) throws {
        let status = 400 + Int(data.first ?? 0) % 200
        let error = APIError(status: status, body: data)
        _ = "\(error)"
        _ = error.serverCode
        guard !error.isOffline, !error.isTimeout else { throw FuzzViolation("a body was read as a transport failure") }
    }
}
