import APICoreOffline
import Foundation

extension ChatHistoryClient {
    /// Marks each of the signed-in user's refused questions failed on the device, then settles it with the
    /// queue, which keeps a refusal (across restarts too) until then. A refusal that is no longer the signed-in
    /// user's (a sign-in came meanwhile) is left for its own user.
    func settleRefusals(_ failures: [MutationFailure]) async {
        for failure in failures where [Mutation.ask, Mutation.match].contains(failure.mutation.name) {
            guard let user = try? await currentUser(), (await queue.failures()).contains(failure) else { continue }
            if let id = Self.messageId(of: failure.mutation) {
                guard (try? store.markFailed(lease: store.lease(for: user), messageId: id)) != nil else { continue }
            }
            await queue.settle(failure, of: user)
        }
    }
}
