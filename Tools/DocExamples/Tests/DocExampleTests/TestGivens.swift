import APICoreTestServer
import APICoreTesting
import CacheKit
import DocExamples
import GRDB

// The names the testing modules' examples take as given: what a test made in an earlier step. Compiled,
// never run.

var transport: RecordingTransport { given() }
var server: TestServer { given() }
var files: UserDatabases { given() }

/// A row a test's file holds.
struct Item: TableRecord {
    static let databaseTableName = "item"
}
