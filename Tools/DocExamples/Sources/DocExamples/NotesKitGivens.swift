import APICore
import APICoreGraphQL
import APICoreREST
import CatalogKit
import ContactsKit
import CacheKit
import Foundation
import GRDB

// docs/writing-a-kit.md builds a kit of the reader's own, a notes kit: these are its types as the page takes
// them, kept to what the page's examples call (the kit template generates the whole of one).

/// A note as the kit's server sends it.
struct Note: Codable, Sendable, Hashable {
    var id: String
    var title: String
    var body: String
    var photoPath: String

    /// What local search indexes of it.
    var searchDocument: SearchDocument {
        SearchDocument(id: id, sortKey: title, fields: [.name(title), .text([body])])
    }
}

/// What the notes screen caches.
struct NotesItem: Codable, Sendable {
    var id: String
}

/// A note as a row of the kit's file.
struct NoteRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "note"
    var id: String
    var title: String
    var body: String
    var photoPath: String

    init(_ note: Note) {
        (id, title, body, photoPath) = (note.id, note.title, note.body, note.photoPath)
    }

    var note: Note { Note(id: id, title: title, body: body, photoPath: photoPath) }
}

/// A page of the notes feed.
struct NotesPage: Sendable {
    var notes: [Note]
    var next: String?
    var changesToken: String?
    var tokenRefused: Bool
}

/// The kit's client of its server.
struct NotesAPI: Sendable {
    func signedInUser() async throws -> String { given() }
    func notes() async throws -> [NotesItem] { given() }
    func notes(after cursor: String?, changedSince token: String?, as user: String) async throws -> NotesPage { given() }
}

/// The kit's reads of its file.
enum NotesStore {}

/// The kit's client, as its screens use it.
struct NotesClient: Sendable {
    let files: UserDatabases
    func currentUser() async throws -> String { given() }
}

/// The app's own server, as the CacheKit example fetches from it.
struct ExampleBackend: Sendable {
    func profile() async throws -> Profile { given() }
    func notes() async throws -> [NotesItem] { given() }
}

/// A value the CacheKit example caches.
struct Profile: Codable, Sendable {
    var name: String
}

var backend: ExampleBackend { given() }
var store: NotesStoreFile { given() }
var note: Note { given() }

/// The user's notes file, as the search example reads it whole.
struct NotesStoreFile: Sendable {
    func allNotes(_ user: String) throws -> [Note] { given() }
}

var files: UserDatabases { given() }
var owner: UserDatabases.Lease { given() }

/// The accounts an app's own GraphQL query asks for (GraphQLClient's typed fetch).
struct AccountsQuery: GraphQLQuery {
    static let document = "query Accounts { accounts { id } }"
    var variables: [String: JSONValue] { [:] }
}

/// The typed answer of ``AccountsQuery``.
struct AccountsData: Decodable, Sendable {
    var accounts: [String]
}

/// A response of the app's own server (the REST examples' `Decodable` type).
struct CatalogResponse: Codable, Sendable {
    var data: [String]
}

/// An account as the JSON decoder example reads it.
struct Account: Decodable, Sendable {
    var id: String
    var balance: Int
}

/// The app's home screen, as its snapshot keeps it.
struct Home: Codable, Sendable {
    var titles: [String]
}

extension NotesStore {
    /// The kit's file's migrations.
    static var migrator: DatabaseMigrator { given() }
}

var profiles: CacheManager<Profile> { given() }
var answer: [String: JSONValue] { given() }
var storedUserId: String? { given() }
var clock: any CacheClock { given() }
var photoPath: String { given() }
var contactId: String { given() }
var data: Data { given() }
var expiry: Date { given() }
var screens: ScreenTelemetry { given() }
var response: APIResponse<CatalogResponse> { given() }
var contact: Contact { given() }
var contacts: ContactsClient { given() }
var catalog: CatalogClient { given() }

/// The app's home screen, read from the caches.
func readHome() async throws -> Home { given() }
/// Draws the home screen (with the age of a snapshot).
func draw(_ home: Home, age: Date? = nil) {}
/// Draws an avatar.
func renderAvatar() async throws -> Data { given() }
