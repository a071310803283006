import Foundation
import FuzzBodies

/// libFuzzer's callback: one input through `RESTFuzz`; a broken property traps, so the input is kept.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    do {
        try runBlocking { try await RESTFuzz.run(data) }
    } catch {
        fatalError("\(error)")
    }
    return 0
}
