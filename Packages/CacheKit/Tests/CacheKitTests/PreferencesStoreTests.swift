import CacheKit
import CacheKitTesting
import Foundation
import Testing

@Suite(.timeLimit(.minutes(10))) struct PreferencesStoreTests {
    @Test func valuesSurviveAReopenAndEraseLeavesNoFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("support/preferences.json")
        let store = PreferencesStore(url: url)
        try store.set(true, forKey: "onboarding.done")
        try store.set(["de", "en"], forKey: "languages")
        let reopened = PreferencesStore(url: url)
        #expect(reopened.value(forKey: "onboarding.done", as: Bool.self) == true)
        #expect(reopened.value(forKey: "languages", as: [String].self) == ["de", "en"])
        #expect(reopened.value(forKey: "languages", as: Int.self) == nil, "another type is nil, not a crash")
        try reopened.removeValue(forKey: "languages")
        #expect(PreferencesStore(url: url).value(forKey: "languages", as: [String].self) == nil)
        try reopened.erase()
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(reopened.value(forKey: "onboarding.done", as: Bool.self) == nil)
        // Erased with its account, the store writes nothing again.
        #expect(throws: PreferencesStore.ErasedError.self) { try reopened.set(true, forKey: "onboarding.done") }
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test func aTruncatedFileReadsAsEmptyAndIsReplacedWhole() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("preferences.json")
        try Data(#"{"a":"dHJ1ZQ"#.utf8).write(to: url)
        let store = PreferencesStore(url: url)
        #expect(store.value(forKey: "a", as: Bool.self) == nil)
        try store.set(1, forKey: "b")
        #expect(PreferencesStore(url: url).value(forKey: "b", as: Int.self) == 1)
    }
}
