import Foundation

/// What the server holds of one user at the end of a story, as the life test reads it.
struct LifeServerView: Sendable {
    /// How many of the user's contacts carry each name.
    var contactNames: [String: Int] = [:]
    /// How many of the user's circles carry each name.
    var circleNames: [String: Int] = [:]
    /// How many of the user's chat messages carry each text.
    var messages: [String: Int] = [:]
    /// The premium purchases charged.
    var charges = 0
}

/// The story's promises, judged from its steps, its journal and what the server holds after the settle: each
/// change the user made is on the server exactly once (or at most once when a kill cut it, or a logout
/// discarded it before it could be sent); nothing is charged twice. A pure function, so that each check's
/// positive control feeds it a planted break.
struct LifeVerdict {
    let story: LifeStory
    let ended: [Int: String?]
    /// What each begin line said: a rename's target, also for one a kill cut.
    var begun: [Int: String?] = [:]

    /// Whether the change of step `index` must be on the server exactly once: it returned, and its user's queue
    /// was drained (a settle while they were signed in) or never discarded (no logout of theirs came first: an
    /// expiry or another user's sign-in keeps their queue for their next sign-in, and the story's end settles
    /// every user).
    func mustLandOnce(_ index: Int) -> Bool {
        guard ended[index] != nil else { return false }
        let user = story.steps[index].user
        var signedIn: Int? = user
        for step in story.steps[(index + 1)...] {
            switch step.kind {
            case .signIn: signedIn = step.user
            case .logout where signedIn == user: return false
            case .logout, .expire: signedIn = nil
            case .settle where signedIn == user: return true
            default: continue
            }
        }
        return true
    }

    /// Every broken promise for `user`, in a sentence each.
    func problems(user: Int, server: LifeServerView) -> [String] {
        var problems: [String] = []
        let mine = story.steps.indices.filter { story.steps[$0].user == user }
        func expect(_ count: Int, _ what: String, of index: Int) {
            let once = mustLandOnce(index)
            if count > 1 || (once && count != 1) {
                problems.append("step \(index) (\(what)) is on the server \(count) times; expected \(once ? "once" : "at most once")")
            }
        }
        for index in mine {
            let step = story.steps[index]
            switch step.kind {
            case .createContact:
                let chain = renameChain(from: index)
                let present = chain.filter { (server.contactNames[$0.name] ?? 0) > 0 }
                expect(
                    chain.map { server.contactNames[$0.name] ?? 0 }.reduce(0, +), "a contact created, as \(chain.map(\.name))", of: index)
                if let last = chain.last, mustLandOnce(index), mustLandOnce(last.index),
                    present.map(\.name) != [last.name]
                {
                    problems.append(
                        "step \(index): the contact's last rename (\(last.name)) is not what the server holds (\(present.map(\.name)))")
                }
            case .circleWithCreated:
                expect(server.circleNames[step.marker] ?? 0, "a circle created", of: index)
            case .ask:
                expect(server.messages[step.marker] ?? 0, "a question asked", of: index)
            default:
                continue
            }
        }
        let purchases = mine.filter { story.steps[$0].kind == .purchase }
        let confirmed = purchases.filter { ended[$0] == .some(nil) }.count
        if server.charges < confirmed || server.charges > purchases.count {
            problems.append("\(server.charges) premium charges for \(confirmed) purchases confirmed of \(purchases.count) asked")
        }
        return problems
    }

    /// The contact created at `index` under each name it may have had: its creation, then each rename of it that
    /// returned or was cut (a rename's begin line names the contact it acts on, by its name then). A cut rename
    /// may not have happened, so a later one may name the contact by the name before it: both are followed.
    func renameChain(from index: Int) -> [(index: Int, name: String)] {
        var chain = [(index: index, name: story.steps[index].marker)]
        for later in (index + 1)..<story.steps.count where story.steps[later].kind == .renameCreated {
            if case .some(.some(let from)) = begun[later] ?? ended[later], chain.contains(where: { $0.name == from }) {
                chain.append((later, story.steps[later].marker))
            }
        }
        return chain
    }
}
