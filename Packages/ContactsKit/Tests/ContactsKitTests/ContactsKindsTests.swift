import ContactsKit
import Foundation
import Testing

/// The fields the server may extend decode any value: a known one as its case, an unknown one kept as sent
/// (a newer server never makes an older app fail to read its address book), and encode back unchanged.
@Suite(.timeLimit(.minutes(10))) struct ContactsKindsTests {
    private let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()

    @Test func unknownValuesDecodeAndEncodeBackAsSent() throws {
        let json = #"""
            {"id":"c1","displayName":"R2","phones":[],"emails":[],"circles":[],"profileClass":"robot",
             "enrichmentBadges":[],"updatedAt":"2026-01-15T09:00:00Z"}
            """#
        let contact = try decoder.decode(Contact.self, from: Data(json.utf8))
        #expect(contact.profileClass == .unknown("robot"))
        let encoded = String(decoding: try JSONEncoder().encode(contact.profileClass), as: UTF8.self)
        #expect(encoded == #""robot""#)

        let circle = try decoder.decode(
            ContactCircle.self,
            from: Data(
                ##"{"id":"x","name":"Guild","color":"#000000","type":"guild","memberCount":2,"accessPolicies":{"phone":"friends","email":"nobody"}}"##
                    .utf8))
        #expect(circle.type == .unknown("guild"))
        #expect(circle.accessPolicies == ["phone": AccessAudience.unknown("friends"), "email": .nobody])

        let suggestion = try decoder.decode(
            DuplicateSuggestion.self,
            from: Data(#"{"id":"s","contactA":"a","contactB":"b","confidence":0.5,"tier":"maybe","evidence":[],"status":"snoozed"}"#.utf8))
        #expect(suggestion.tier == .unknown("maybe") && suggestion.status == .unknown("snoozed"))
    }

    @Test func knownValuesDecodeAsTheirCases() throws {
        for (raw, value) in [("person", ProfileClass.person), ("business", .business), ("family", .family)] {
            #expect(try decoder.decode(ProfileClass.self, from: Data(#""\#(raw)""#.utf8)) == value)
            #expect(value.rawValue == raw)
        }
        #expect(CircleKind("custom") == .custom && SuggestionTier("auto") == .auto && SuggestionStatus("pending") == .pending)
        #expect(AccessAudience("circle") == .circle && AccessAudience("everyone").description == "everyone")
    }
}
