import APICore
import APICoreGraphQL
import APICoreOffline
import APICoreREST
import AccountsKit
import CacheKit
import CatalogKit
import ChatHistoryKit
import ContactsKit
import Foundation
import SessionKit
import Testing

/// Every public error type of the core and the kits reads, through `localizedDescription` (what an app on
/// Apple platforms shows), as one sentence a screen can show: no type name, no internal reason, no
/// personal data, and never Foundation's "The operation couldn't be completed".
@Suite(.timeLimit(.minutes(10))) struct ErrorMessageTests {
    /// Personal or internal details the samples carry; none may reach a sentence.
    static let secrets = ["alice@example.com", "acct-4242", "10.0.0.7", "Failed to connect", "INSUFFICIENT", "sqlite"]

    static let api: [APIError] = [
        .transport(.offline(reason: "Failed to connect to 10.0.0.7 port 1")), .transport(.timedOut),
        .transport(.connectionLost(reason: "reset by 10.0.0.7")), .transport(.cancelled),
        .transport(.pinMismatch(host: "pins.example.com")), .transport(.invalidRequest(reason: "line break in target")),
        .transport(.other(reason: "sqlite busy")), .cancelled, .unauthorized(body: Data("alice@example.com".utf8)),
        .forbidden(body: Data()), .server(ServerError(status: 409, code: "INSUFFICIENT", message: "acct-4242 is short")),
        .status(code: 500, body: Data("alice@example.com".utf8)), .status(code: 404, body: Data()),
        .status(code: 429, body: Data()), .decoding(path: "data.byId.acct-4242.entries[3].balance", reason: "acct-4242 expected Int"),
        .notCached(MissingData(path: "Account:acct-4242.balance")), .invalidRequest(reason: "bad path"),
        .invalidOperation(.syntax(message: "unexpected }", line: 1, column: 2)),
        .graphQL(GraphQLErrors(errors: [GraphQLResponseError(message: "acct-4242 unknown")], data: nil)),
        .requiresConnection(operation: "MakePayment"),
    ]

    static var everyError: [any Error] {
        var errors: [any Error] = api
        errors += api.map { AccountsError.api($0) } + api.map { CatalogError.api($0) } + api.map { ChatHistoryError.api($0) }
        errors += api.map { ContactsError.api($0) } + api.map { ImageRequestError.request($0) }
        errors += [
            TransportError.offline(reason: "Failed to connect to 10.0.0.7"),
            GraphQLOperationError.unknownFragment("Secret"), ContainerError.duplicateKit("catalog"),
            PinningPolicyError.noBackupPin(host: "pins.example.com"),
            MutationQueueError.requiresConnection(mutation: "MakePayment"), MutationQueueError.signedOut,
            MutationQueueError.sessionChanged, ImageRequestError.cache(.notAnImage(bytes: 3)),
            MutationQueueError.storage(reason: "sqlite full"), MutationQueueError.invalidOperation(.unsupported("x")),
            RecordStoreError.corrupt(key: "acct-4242", reason: "sqlite"), RecordStoreError.database("sqlite"),
            CacheError.encoding(key: RedactedKey("acct-4242"), reason: "sqlite"), CacheError.invalidFeatureName("x y"),
            TimeoutSettingsError.unreadable(path: "/home/alice@example.com/cache-settings.json", reason: "sqlite"),
            SignInError.invalidEmail(message: "Enter an e-mail address like name@example.org."),
            SignInError.weakPassword([.digit]), SignInError.rejected(message: "alice@example.com is unknown"),
            SignInError.rateLimited(retryAfter: .seconds(30)), SignInError.tokenStorage(.corrupt(reason: "sqlite")),
            SignInError.previousUserDataNotCleared(participants: ["sqlite"]), TokenStoreError.io(operation: "sqlite", errno: 5),
            CatalogError.invalidLimit(500), CatalogError.invalidSlug("funnel 9"),
            CatalogError.invalidCursor(message: "sqlite: acct-4242 is short"),
            CatalogError.notFound(slug: "funnel-9"), CatalogError.queue(.signedOut),
            AccountsError.invalidAmount(-1), AccountsError.insufficientFunds(accountId: "acct-4242"),
            AccountsError.unknownAccount("acct-4242"), AccountsError.requiresConnection,
            ChatHistoryError.signedOut, ChatHistoryError.invalidText, ChatHistoryError.storage(reason: "sqlite"),
            ChatHistoryError.queue(.storage(reason: "sqlite")),
            ContactsError.signedOut, ContactsError.storage(reason: "sqlite"), ContactsError.requiresConnection, ContactsError.noQueue,
            ImageCacheError.notAnImage(bytes: 3), ImageCacheError.loadFailed(reason: "sqlite"), ImageCacheError.cancelled,
            SyncError.changesTokenRejected, SyncError.sessionEnded, CacheError.cleared,
            SyncFailure(TransportError.offline(reason: "Failed to connect to 10.0.0.7")), SyncFailure(CancellationError()),
            CacheReadMiss.missing(path: "Account:acct-4242.balance"), CacheReadMiss.corrupt(path: "Account:acct-4242", reason: "sqlite"),
            PreferencesStore.ErasedError(),
        ]
        do {
            _ = try JSONValue.parse(Data("{\"acct-4242\": ".utf8))
        } catch {
            errors.append(error)
        }
        return errors
    }

    /// The public types of `text` that conform to `Error` or one of its refinements, in their declaration (its
    /// inheritance list may run over lines) or in an extension.
    static func publicErrorTypes(in text: String) throws -> Set<String> {
        let error = #"\b(?:Swift\.)?(?:Error|LocalizedError|CustomNSError|RecoverableError)\b"#
        let declaration = #"(?:public|open)\s+(?:(?:final|indirect|nonisolated)\s+)*(?:enum|struct|class|actor)\s+(\w+)"#
        func names(_ pattern: String) throws -> Set<String> {
            Set(try text.matches(of: Regex(pattern)).compactMap { $0.output[1].substring.map(String.init) })
        }
        let declared = try names(declaration + #"[^{]*?:[^{]*?"# + error)
        let extended = try names(#"extension\s+(\w+)\s*:[^{]*?"# + error)
        return declared.union(extended.intersection(try names(declaration)))
    }

    /// The scan's own positive control: every way of declaring a public error is found, nothing else.
    @Test func theScanFindsEveryWayToDeclareAnError() throws {
        let text = """
            public enum A: Error {}
            public struct B: LocalizedError, Sendable {}
            public final class C: Error {}
            public indirect enum D: Sendable,
                Error {}
            public enum E {}
            extension E: CustomNSError {}
            struct Internal: Error {}
            public enum ErrorMessages {}
            extension Internal: LocalizedError {}
            """
        #expect(try Self.publicErrorTypes(in: text) == ["A", "B", "C", "D", "E"])
    }

    /// Every public error type declared in the kits' and the core's sources (their testing modules aside) is
    /// among the samples: a new one cannot be left out of the check below. The apps' folder is not scanned:
    /// its error types are the tools' own (`mib`, the reference backend), not an app's API.
    @Test func theSamplesHoldEveryPublicErrorType() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let sources = root.appendingPathComponent("Packages")
        var texts: [String] = []
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            let folders = file.pathComponents
            guard file.pathExtension == "swift", folders.contains("Sources"), !folders.contains(where: { $0.hasSuffix("Testing") })
            else { continue }
            texts.append(try String(contentsOf: file, encoding: .utf8))
        }
        let declared = try Self.publicErrorTypes(in: texts.joined(separator: "\n"))
        // RecordPackingError is made only inside APICoreGraphQL (no public initializer) and reaches an app wrapped
        // in RecordStoreError, which is sampled.
        let sampled = Set(Self.everyError.map { String(describing: type(of: $0)) }).union(["RecordPackingError"])
        #expect(declared.count > 15, "the scan found the error types: \(declared.sorted())")
        #expect(declared.subtracting(sampled).isEmpty, "public error types with no sample: \(declared.subtracting(sampled).sorted())")
    }

    @Test func everyErrorReadsAsASentenceForPeople() {
        for error in Self.everyError {
            let sentence = error.localizedDescription
            #expect(!sentence.contains("operation couldn"), "Foundation's fallback for \(String(reflecting: error))")
            #expect(sentence.first?.isUppercase == true && sentence.hasSuffix("."), "not a sentence: \(sentence)")
            #expect(
                sentence.range(of: #"[A-Za-z]+(Error|Kit|Core)\b|\w+\(|\.[a-z]+[A-Z]"#, options: .regularExpression) == nil,
                "a type or case name in: \(sentence)")
            for secret in Self.secrets {
                #expect(!sentence.contains(secret), "'\(secret)' leaks into: \(sentence)")
            }
        }
    }

    @Test func aKitPassesOnTheCoresSentence() {
        for error in Self.api {
            #expect(CatalogError.api(error).localizedDescription == error.localizedDescription)
            #expect(AccountsError.api(error).localizedDescription == error.localizedDescription)
        }
        #expect(APIError.transport(.offline(reason: "x")).localizedDescription == ErrorMessages.offline)
        #expect(APIError.unauthorized(body: Data()).localizedDescription == ErrorMessages.signInAgain)
    }

    /// What a log line may never carry: personal data, server messages, addresses, paths of the device.
    /// Configuration and public catalog data do appear in log forms on purpose (a pinned host, a kit's
    /// name, a funnel's slug), so the samples carry no secret in those fields.
    static let logSecrets = ["alice@example.com", "acct-4242", "10.0.0.7", "Failed to connect", "is short", "/home/"]

    /// Security review two, finding 7: every error's log form (`"\(error)"`, what `mib sync --json` and
    /// every log line print) names its kind and leaves out what it carries, wrapped errors included.
    @Test func everyErrorsLogFormIsRedacted() {
        for error in Self.everyError {
            let logged = "\(error)"
            #expect(!logged.isEmpty)
            // What `mib sync --json` prints of a failed run.
            var report = SyncReport(name: "contacts")
            report.error = error
            let json = (try? JSONEncoder().encode(report)).map { String(decoding: $0, as: UTF8.self) } ?? ""
            #expect(json.contains("\"error\""), "the report names its error")
            for secret in Self.logSecrets {
                #expect(!logged.contains(secret), "'\(secret)' leaks into the log form: \(logged)")
                #expect(!json.contains(secret), "'\(secret)' leaks into a sync report: \(json)")
            }
        }
    }

    @Test func theLogFormStaysPreciseAndRedacted() {
        let error = APIError.server(ServerError(status: 409, code: "INSUFFICIENT_FUNDS", message: "acct-4242 is short"))
        #expect("\(error)" == "APIError.server, status 409, code INSUFFICIENT_FUNDS")
        #expect(error.localizedDescription == ErrorMessages.status(409))
    }
}
