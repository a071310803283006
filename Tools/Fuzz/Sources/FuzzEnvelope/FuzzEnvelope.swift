import FuzzBodies

/// libFuzzer's callback: one input through `EnvelopeFuzz`; a broken property traps, so the input is kept.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    fuzzOneInput(bytes, count) { try EnvelopeFuzz.run($0) }
}
