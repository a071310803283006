/// The sign-in rules (REQ AUTH-15, AUTH-16), in one place for the app and the backend, so a
/// client can never accept what the server refuses or the reverse.
public enum CredentialRules {
    /// A password requirement a sign-up form can tick off.
    public enum PasswordRequirement: String, Sendable, Hashable, CaseIterable {
        /// At least 8 characters.
        case minimumLength
        /// At least one uppercase letter.
        case uppercaseLetter
        /// At least one digit.
        case digit

        /// What to show next to the field.
        public var message: String {
            switch self {
            case .minimumLength: "At least 8 characters"
            case .uppercaseLetter: "At least one uppercase letter"
            case .digit: "At least one number"
            }
        }
    }

    /// The message under an invalid e-mail field.
    public static let invalidEmailMessage = "Please enter a valid email address"

    /// Whether `email` is an address the service accepts: the practical subset of RFC 5322 (no
    /// quoted local parts or comments): exactly one `@`, a non-empty local part of letters, digits
    /// and ``allowedLocalSymbols`` with no leading, trailing or doubled dot, and a domain of at least
    /// two dot-separated labels of letters, digits and inner hyphens, with no spaces anywhere.
    /// Non-ASCII characters are refused, as most mail systems still do.
    public static func isValidEmail(_ email: String) -> Bool {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, let local = parts.first, let domain = parts.last,
            !local.isEmpty, local.utf8.count <= 64, email.utf8.count <= 254
        else { return false }
        guard local.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || allowedLocalSymbols.contains($0)) }),
            !local.hasPrefix("."), !local.hasSuffix("."), !local.contains("..")
        else { return false }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2 else { return false }
        return labels.allSatisfy { label in
            !label.isEmpty && label.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        } && labels.last?.allSatisfy(\.isLetter) == true
    }

    /// The symbols RFC 5322 allows unquoted in a local part, besides letters and digits.
    public static let allowedLocalSymbols: Set<Character> = Set("!#$%&'*+-/=?^_`{|}~.")

    /// The requirements `password` does not meet yet (empty when it is acceptable).
    public static func unmetRequirements(_ password: String) -> [PasswordRequirement] {
        var unmet: [PasswordRequirement] = []
        if password.count < 8 { unmet.append(.minimumLength) }
        if !password.contains(where: \.isUppercase) { unmet.append(.uppercaseLetter) }
        if !password.contains(where: \.isNumber) { unmet.append(.digit) }
        return unmet
    }
}
