import APICore
import CacheKit
import Foundation
import HTTPTypes
import ReferenceBackend
import Testing

/// The chat-history contract (REQ CHAT) over real HTTP.
@Suite(.timeLimit(.minutes(10))) struct ChatContractTests {
    func token(_ fixture: BackendFixture, _ email: String = "alice@example.com", _ password: String = "Password1") async throws -> String {
        try await fixture.token(email, password)
    }

    func data(_ response: TransportResponse) throws -> JSONValue? {
        try JSONValue.parse(response.body)["data"]
    }

    @Test func threadsAndMessagesSyncIdempotentlyAndStayPrivate() async throws {
        try await withBackend(5) { fixture in
            let alice = try await token(fixture)
            let threads = try data(try await fixture.get("/chat-history/threads", token: alice))
            guard case .array(let all)? = threads else {
                Issue.record("no threads")
                return
            }
            #expect(all.count == 3)
            guard case .array(let matches)? = try data(try await fixture.get("/chat-history/threads?area=compatibility", token: alice))
            else {
                Issue.record("no compatibility threads")
                return
            }
            #expect(matches.count == 1)

            let created = try await fixture.send(
                .post, "/chat-history/threads", json: #"{"id":"new-1","title":"Career","area":"chat"}"#, token: alice)
            #expect(created.status == 201)
            let retried = try await fixture.send(
                .post, "/chat-history/threads", json: #"{"id":"new-1","title":"Career","area":"chat"}"#, token: alice)
            #expect(retried.status == 200)
            for _ in 0..<2 {
                _ = try await fixture.send(
                    .post, "/chat-history/threads/new-1/messages", json: #"{"id":"m1","role":"user","text":"Hello"}"#, token: alice)
            }
            _ = try await fixture.send(
                .post, "/chat-history/threads/new-1/messages", json: #"{"id":"m2","role":"assistant","text":"Hi"}"#, token: alice)
            guard case .array(let messages)? = try data(try await fixture.get("/chat-history/threads/new-1/messages", token: alice)) else {
                Issue.record("no messages")
                return
            }
            #expect(messages.compactMap { $0["id"]?.stringValue } == ["m1", "m2"])

            let bob = try await token(fixture, "bob@example.com", "Password2")
            #expect(try await fixture.get("/chat-history/threads/new-1/messages", token: bob).status == 403)
            #expect(try await fixture.send(.delete, "/chat-history/threads/new-1", json: "", token: bob).status == 403)
            #expect(try await fixture.get("/chat-history/threads").status == 401)
            #expect(try await fixture.send(.delete, "/chat-history/threads/new-1", json: "", token: alice).status == 204)
            #expect(try await fixture.get("/chat-history/threads/new-1/messages", token: alice).status == 404)
        }
    }

    /// The attack of the security review: Bob posts to his own thread with the id of one of Alice's
    /// messages, hoping the idempotent send answers with the stored message.
    @Test func aMessageIdFromAnotherUsersThreadNeverReturnsTheirMessage() async throws {
        try await withBackend(5) { fixture in
            let alice = try await token(fixture)
            let bob = try await token(fixture, "bob@example.com", "Password2")
            _ = try await fixture.send(
                .post, "/chat-history/threads", json: #"{"id":"alice-t","title":"Private","area":"chat"}"#, token: alice)
            let secret = try await fixture.send(
                .post, "/chat-history/threads/alice-t/messages", json: #"{"id":"m-secret","role":"user","text":"my diagnosis"}"#,
                token: alice)
            #expect(secret.status == 201)
            _ = try await fixture.send(.post, "/chat-history/threads", json: #"{"id":"bob-t","title":"Mine","area":"chat"}"#, token: bob)
            let replayed = try await fixture.send(
                .post, "/chat-history/threads/bob-t/messages", json: #"{"id":"m-secret","role":"user","text":"guess"}"#, token: bob)
            #expect(replayed.status == 201)
            #expect(String(decoding: replayed.body, as: UTF8.self).contains("my diagnosis") == false)
            #expect(try data(replayed)?["text"]?.stringValue == "guess")
            // Bob's thread holds his message; Alice's still holds hers, unchanged.
            let bobs = try data(try await fixture.get("/chat-history/threads/bob-t/messages", token: bob))
            #expect(String(describing: bobs).contains("my diagnosis") == false)
            let alices = try data(try await fixture.get("/chat-history/threads/alice-t/messages", token: alice))
            #expect(alices?.arrayValue?.first?["text"]?.stringValue == "my diagnosis")
            // A thread id of Alice's is refused to Bob, at creation and through the insight route alike.
            let taken = try await fixture.send(
                .post, "/chat-history/threads", json: #"{"id":"alice-t","title":"x","area":"chat"}"#, token: bob)
            #expect(taken.status == 403)
            #expect(String(decoding: taken.body, as: UTF8.self).contains("Private") == false)
        }
    }

    /// Security review two: Alice's thread sent to the insight routes with Bob's token never gives him
    /// her stored reply, on either route, and nothing is written into her thread.
    @Test func anotherUsersThreadThroughTheInsightRoutesIsForbidden() async throws {
        try await withBackend(5) { fixture in
            let alice = try await token(fixture)
            let bob = try await token(fixture, "bob@example.com", "Password2")
            for (route, field) in [("/predict/ask", "question"), ("/compatibility/match", "partner")] {
                let thread = "alice-\(field)"
                let asked = #"{"threadId":"\#(thread)","messageId":"m-1","\#(field)":"Will it go well?"}"#
                let hers = try await fixture.send(.post, route, json: asked, token: alice)
                #expect(hers.status == 200, "\(route)")
                let reply = try #require(try data(hers)?["reply"]?.stringValue)
                let stolen = try await fixture.send(.post, route, json: asked, token: bob)
                #expect(stolen.status == 403, "\(route)")
                #expect(!String(decoding: stolen.body, as: UTF8.self).contains(reply), "\(route) gave Bob Alice's reply")
                let other = #"{"threadId":"\#(thread)","messageId":"m-2","\#(field)":"Another?"}"#
                #expect(try await fixture.send(.post, route, json: other, token: bob).status == 403, "\(route)")
                #expect(try fixture.backend.catalog.messages(threadId: thread).count == 2, "\(route): Alice's exchange only")
            }
        }
    }

    @Test func updatedSinceReturnsOnlyNewerThreads() async throws {
        let clock = Locked(Date(timeIntervalSince1970: 1_800_000_000))
        try await withBackend(5, now: { clock.withLock { $0 } }) { fixture in
            let alice = try await token(fixture)
            _ = try await fixture.send(.post, "/chat-history/threads", json: #"{"id":"late","title":"Later","area":"chat"}"#, token: alice)
            let since = "2027-01-01T00:00:00Z"
            guard case .array(let newer)? = try data(try await fixture.get("/chat-history/threads?updatedSince=\(since)", token: alice))
            else {
                Issue.record("no threads")
                return
            }
            #expect(newer.compactMap { $0["id"]?.stringValue } == ["late"])
            #expect(try await fixture.get("/chat-history/threads?updatedSince=yesterday", token: alice).status == 400)
        }
    }

    /// A restore takes one request a page: with `include=messages` each thread carries its messages, in
    /// order, and only its own; every page has a strong ETag and answers a matching `If-None-Match` with a 304.
    @Test func aPageOfThreadsCarriesTheirMessagesAndAnETag() async throws {
        try await withBackend(5) { fixture in
            let alice = try await token(fixture)
            let path = "/chat-history/threads?limit=2&include=messages"
            let page = try await fixture.get(path, token: alice)
            guard case .array(let threads)? = try data(page) else {
                Issue.record("no threads")
                return
            }
            #expect(threads.count == 2)
            for thread in threads {
                let id = try #require(thread["id"]?.stringValue)
                guard case .array(let messages)? = thread["messages"] else {
                    Issue.record("thread \(id) came without its messages")
                    continue
                }
                let expected = try data(try await fixture.get("/chat-history/threads/\(id)/messages", token: alice))?.arrayValue
                #expect(expected != nil, "thread \(id): its messages could not be read on their own")
                #expect(!messages.isEmpty && messages == expected, "thread \(id): its own messages, in order")
            }
            let tag = try #require(page.headerFields[.eTag])
            #expect(try await fixture.get(path, [.ifNoneMatch: tag], token: alice).status == 304)
            #expect(try await fixture.get(path, [.ifNoneMatch: "\"other\""], token: alice).status == 200)
            let plain = try #require(try data(try await fixture.get("/chat-history/threads?limit=2", token: alice))?.arrayValue)
            #expect(plain.count == 2 && plain.allSatisfy { $0["messages"] == nil }, "without include=messages, threads only")
        }
    }

    /// REQ CHAT-4: a question resent with its message id, even from another session (a new sign-in, so
    /// not from the session's cache), gets the first reply back, marked cached, and no second exchange.
    @Test func aQuestionResentFromAnotherSessionGetsItsFirstReplyAndNoSecondExchange() async throws {
        try await withBackend(5) { fixture in
            let question = #"{"threadId":"t-resend","messageId":"m-resend","question":"Will the move go well?"}"#
            let first = try await fixture.send(.post, "/predict/ask", json: question, token: try await token(fixture))
            let resent = try await fixture.send(.post, "/predict/ask", json: question, token: try await token(fixture))
            #expect(first.status == 200 && resent.status == 200)
            #expect(try data(first)?["reply"] == (try data(resent)?["reply"]) && (try data(first)?["cached"]) == false)
            #expect(try data(resent)?["cached"] == true, "answered from the stored exchange, not asked again")
            #expect(try fixture.backend.catalog.messages(threadId: "t-resend").count == 2, "one question, one reply")
        }
    }

    @Test func todaysPredictionIsCachedByTheServerUntilTheDayEnds() async throws {
        let clock = Locked(Date(timeIntervalSince1970: 1_800_000_000))  // 2027-01-15T08:00:00Z
        try await withBackend(5, now: { clock.withLock { $0 } }) { fixture in
            let alice = try await token(fixture)
            let first = try await fixture.get("/todays-prediction", token: alice)
            #expect(first.headerFields[HTTPField.Name("X-Backend-Cache")!] == "MISS")
            #expect(first.headerFields[.cacheControl] == "private, max-age=57600")
            let second = try await fixture.get("/todays-prediction", token: alice)
            #expect(second.headerFields[HTTPField.Name("X-Backend-Cache")!] == "HIT")
            #expect(try data(first) == (try data(second)))
            #expect(try data(first)?["date"] == "2027-01-15")
            clock.withLock { $0 += 16 * 3_600 }
            let later = try await token(fixture)  // the first token expired meanwhile
            let tomorrow = try await fixture.get("/todays-prediction", token: later)
            #expect(tomorrow.headerFields[HTTPField.Name("X-Backend-Cache")!] == "MISS")
            #expect(try data(tomorrow)?["date"] == "2027-01-16")
            #expect(try await fixture.get("/todays-prediction?date=tomorrow", token: later).status == 400)
        }
    }
}
