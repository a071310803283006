import Foundation
import FuzzBodies
import Testing

/// Every seed-corpus file and every input a fuzzer ever crashed on (Tools/Fuzz/Corpus and
/// Tools/Fuzz/Regressions), replayed through the fuzz targets' bodies as ordinary tests, so that CI
/// catches a regression without running a fuzzer.
@Suite(.timeLimit(.minutes(10))) struct FuzzRegressionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The inputs of one target: its corpus and its regressions.
    static func inputs(_ target: String) -> [URL] {
        ["Corpus", "Regressions"].flatMap { folder -> [URL] in
            let directory = root.appendingPathComponent(folder).appendingPathComponent(target)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            return names.sorted().map { directory.appendingPathComponent($0) }
        }
    }

    @Test func theCorporaAreThere() {
        for target in ["FuzzJSON", "FuzzSettings", "FuzzEnvelope", "FuzzREST", "FuzzGraphQL"] {
            #expect(!Self.inputs(target).isEmpty, "no inputs for \(target) under \(Self.root.path)")
        }
        #expect(Self.inputs("FuzzREST").contains { $0.lastPathComponent == "age-1e300.txt" })
    }

    @Test func json() throws {
        for input in Self.inputs("FuzzJSON") {
            #expect(throws: Never.self, "\(input.lastPathComponent)") { try JSONFuzz.run(try Data(contentsOf: input)) }
        }
    }

    @Test func settings() throws {
        for input in Self.inputs("FuzzSettings") {
            #expect(throws: Never.self, "\(input.lastPathComponent)") { try SettingsFuzz.run(try Data(contentsOf: input)) }
        }
    }

    @Test func envelope() throws {
        for input in Self.inputs("FuzzEnvelope") {
            #expect(throws: Never.self, "\(input.lastPathComponent)") { try EnvelopeFuzz.run(try Data(contentsOf: input)) }
        }
    }

    @Test func rest() async throws {
        for input in Self.inputs("FuzzREST") {
            await #expect(throws: Never.self, "\(input.lastPathComponent)") { try await RESTFuzz.run(try Data(contentsOf: input)) }
        }
    }

    @Test func graphQL() async throws {
        for input in Self.inputs("FuzzGraphQL") {
            await #expect(throws: Never.self, "\(input.lastPathComponent)") { try await GraphQLFuzz.run(try Data(contentsOf: input)) }
        }
    }
}
