import CacheKit
import Foundation
import Observation

/// The address book's sync as a screen shows it: running (pages and records so far, of how many), failed
/// (with a sentence), when it last completed, and whether the first sync has finished yet.
///
/// <!-- example: not compiled, SwiftUI is Apple-only -->
/// ```swift
/// struct SyncBanner: View {
///     @State var model: ContactsSyncModel
///     var body: some View {
///         Group {
///             if !model.state.isFirstSyncFinished { Text("Your contacts are on their way…") }
///             if case .failed(let failure) = model.state.activity { Text(failure.localizedDescription) }
///         }
///         .task { await model.run() }
///         .refreshable { await model.syncNow() }
///     }
/// }
/// ```
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor @Observable
public final class ContactsSyncModel {
    /// Where the sync stands.
    public private(set) var state = SyncState()
    private let client: ContactsClient

    /// A model of `client`'s sync.
    public init(client: ContactsClient) {
        self.client = client
    }

    /// Follows the sync's state until the calling task is cancelled.
    public func run() async {
        for await state in client.sync.states() { self.state = state }
    }

    /// Syncs now (pull to refresh); the state shows it running.
    @discardableResult
    public func syncNow() async -> SyncReport {
        await client.syncNow()
    }
}
