import APICore
import Testing

@Suite(.timeLimit(.minutes(10))) struct CredentialRulesTests {
    @Test(arguments: ["ada@example.com", "a.b+tag@mail.example.co.uk", "x_y@sub-domain.example.org", "o'neil@example.ie"])
    func acceptsPracticalAddresses(_ email: String) {
        #expect(CredentialRules.isValidEmail(email))
    }

    @Test(arguments: [
        "", "ada", "ada.example.com", "ada@@example.com", "a@b@example.com", "ada@", "@example.com",
        "ada@example", "ada@example.", "ada@.com", "ada @example.com", "ada@exa mple.com", ".ada@example.com",
        "ada.@example.com", "a..da@example.com", "ada@-example.com", "ada@example.c0m", "adé@example.com",
        "ada@exämple.com",
    ])
    func refusesEverythingElse(_ email: String) {
        #expect(!CredentialRules.isValidEmail(email))
    }

    @Test func reportsEachUnmetPasswordRequirement() {
        #expect(CredentialRules.unmetRequirements("Passw0rd") == [])
        #expect(CredentialRules.unmetRequirements("Passwo1") == [.minimumLength])
        #expect(CredentialRules.unmetRequirements("password1") == [.uppercaseLetter])
        #expect(CredentialRules.unmetRequirements("Password") == [.digit])
        #expect(CredentialRules.unmetRequirements("") == [.minimumLength, .uppercaseLetter, .digit])
        #expect(CredentialRules.unmetRequirements("ÉCOLE1234") == [])
    }
}
