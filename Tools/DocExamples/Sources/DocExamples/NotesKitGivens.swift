import APICore
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
