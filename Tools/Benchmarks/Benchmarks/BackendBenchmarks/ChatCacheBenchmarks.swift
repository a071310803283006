import APICore
import APICoreOffline
import APICoreREST
import APICoreTesting
import Benchmark
import CacheKit
import ChatHistoryKit
import Foundation
import HTTPTypes
import Logging
import MIBCore
import ReferenceBackend

// ChatHistoryKit's performance impact, side by side in one run against the reference backend with its
// default latencies (the model answers in about 3 s): today's prediction, a birth chart and a repeated
// question, each without the kit's cache (a request every time) and with it (a cached read), and a
// full-history restore of 1,000 threads with 20 messages each, from a server that embeds each page's
// messages (after, issue 35) and from one that does not (before: one request a thread).

/// A backend, a signed-in user and the kit over them.
struct ChatBench: Sendable {
    let backend: ReferenceBackend
    let credentials: Credentials
    let rest: RESTClient
    let chat: ChatHistoryClient
    let transport: CountingTransport

    static func start(threads: Int = 0, embedsMessages: Bool = true) async throws -> ChatBench {
        var logger = Logger(label: "bench-chat")
        logger.logLevel = .critical
        let directory = scratchDirectory("ChatBench")
        var configuration = ReferenceBackend.Configuration(databaseURL: directory.appendingPathComponent("backend.sqlite"), logger: logger)
        configuration.chatPagesIncludeMessages = embedsMessages
        let backend = try await startBackend(configuration)
        let login = try await URLSessionTransport().send(TransportRequest(
            method: .post, url: backend.baseURL.appendingPathComponent("auth/login"), headerFields: [.contentType: "application/json"],
            body: Data(#"{"email":"alice@example.com","password":"Password1"}"#.utf8)))
        let body = try JSONValue.parse(login.body)["data"]
        guard let token = body?["token"]?.stringValue, let user = body?["user"]?["id"]?.stringValue else { throw BenchmarkSetupError.noToken }
        let credentials = Credentials(accessToken: token, userId: user)
        let environment = CacheEnvironment(logger: logger, cachesDirectory: directory.appendingPathComponent("caches"))
        let tokens = StaticTokenProvider(credentials)
        let transport = CountingTransport(URLSessionTransport())
        let rest = RESTClient(configuration: .init(baseURL: backend.baseURL, transport: transport, environment: environment,
                                                   tokenProvider: tokens, retry: .none))
        let queue = MutationQueue(configuration: .init(directory: directory.appendingPathComponent("mutations"), tokenProvider: tokens, rest: rest))
        let chat = try ChatHistoryClient(rest: rest, queue: queue, environment: environment, timeZone: .gmt)
        for index in 0..<threads {
            let thread = "bench-\(index)"
            _ = try await rest.send(APIRequest<Data>(method: .post, path: "/chat-history/threads",
                                                     headerFields: [.contentType: "application/json"],
                                                     body: Data(#"{"id":"\#(thread)","title":"Thread \#(index)","area":"chat"}"#.utf8)))
            for message in 0..<20 {
                _ = try await rest.send(APIRequest<Data>(method: .post, path: "/chat-history/threads/\(thread)/messages",
                                                         headerFields: [.contentType: "application/json"],
                                                         body: Data(#"{"id":"\#(thread)-\#(message)","role":"user","text":"Message \#(message) of a long history."}"#.utf8)))
            }
        }
        return ChatBench(backend: backend, credentials: credentials, rest: rest, chat: chat, transport: transport)
    }

    func raw(_ path: String, method: HTTPRequest.Method = .get, body: String? = nil) async throws {
        _ = try await rest.send(APIRequest<Data>(method: method, path: path, headerFields: body == nil ? [:] : [.contentType: "application/json"],
                                                 body: body.map { Data($0.utf8) }), policy: .fetchIgnoringCacheCompletely)
    }
}

let birth = BirthData(dateTime: "1990-04-12T06:30", latitude: 48.85, longitude: 2.35)

let chatCacheBenchmarks: @Sendable () -> Void = {
    let fast = Benchmark.Configuration(metrics: [.wallClock], maxDuration: .seconds(3), maxIterations: 500)
    let slow = Benchmark.Configuration(metrics: [.wallClock], scalingFactor: .one, maxDuration: .seconds(20), maxIterations: 5)

    Benchmark("Chat: today's prediction, no kit cache (a request each time; the server's own cache answers)", configuration: fast) {
        (benchmark: Benchmark, bench: ChatBench) in
        for _ in benchmark.scaledIterations { try await bench.raw("/todays-prediction") }
    } setup: { try await ChatBench.start() }

    Benchmark("Chat: today's prediction, kit cache (until the user's midnight)", configuration: fast) {
        (benchmark: Benchmark, bench: ChatBench) in
        for _ in benchmark.scaledIterations { blackHole(try await bench.chat.todaysPrediction()) }
    } setup: { try await ChatBench.start() }

    Benchmark("Chat: birth chart, no kit cache", configuration: fast) { (benchmark: Benchmark, bench: ChatBench) in
        for _ in benchmark.scaledIterations { try await bench.raw("/astrodata/chart?birth=\(birth.query)") }
    } setup: { try await ChatBench.start() }

    Benchmark("Chat: birth chart, kit cache (forever per birth data)", configuration: fast) { (benchmark: Benchmark, bench: ChatBench) in
        for _ in benchmark.scaledIterations { blackHole(try await bench.chat.chart(for: birth)) }
    } setup: { try await ChatBench.start() }

    Benchmark("Chat: a new question to the model (about 3 s)", configuration: slow) { (benchmark: Benchmark, bench: ChatBench) in
        let id = UUID().uuidString
        try await bench.raw("/predict/ask", method: .post,
                            body: #"{"threadId":"\#(id)","messageId":"\#(id)-q","question":"Question \#(id)?"}"#)
    } setup: { try await ChatBench.start() }

    Benchmark("Chat: the same question again in the session (the server's session cache)", configuration: fast) {
        (benchmark: Benchmark, bench: ChatBench) in
        for _ in benchmark.scaledIterations {
            let id = UUID().uuidString
            try await bench.raw("/predict/ask", method: .post,
                                body: #"{"threadId":"\#(id)","messageId":"\#(id)-q","question":"What does June hold?"}"#)
        }
    } setup: {
        let bench = try await ChatBench.start()
        try await bench.raw("/predict/ask", method: .post, body: #"{"threadId":"warm","messageId":"warm-q","question":"What does June hold?"}"#)
        return bench
    }

    let requests = BenchmarkMetric.custom("requests", polarity: .prefersSmaller, useScalingFactor: false)
    for (name, embeds) in [("one request a thread (before)", false), ("a page's messages in the page (after)", true)] {
        Benchmark("Chat: restore 1,000 threads x 20 messages on a new device, \(name)", configuration: .init(
            metrics: [.wallClock, .peakMemoryResident, requests], scalingFactor: .one, maxDuration: .seconds(60), maxIterations: 5)) {
            (benchmark: Benchmark, bench: ChatBench) in
            try await bench.chat.store.clearAll()
            let before = bench.transport.count()
            let report = try await bench.chat.syncFromServer()
            precondition(report.threads >= 1_000, "restored \(report.threads) threads")
            benchmark.measurement(requests, bench.transport.count() - before)
        } setup: { try await ChatBench.start(threads: 1_000, embedsMessages: embeds) }
    }
}
