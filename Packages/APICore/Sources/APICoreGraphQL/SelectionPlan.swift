import APICore

/// A selection set flattened for decoding straight from records: every field once, in order, with its
/// response key, its store key when it has no arguments, and its own plan, fragments inlined. Built once per
/// operation (with ``GraphQLOperation``), so a read looks fields up in a small array of references
/// instead of walking and copying the selections for every key it decodes.
final class SelectionPlan: Sendable, Hashable {
    struct Field: Sendable {
        /// The alias, else the name: the key a `Decodable` type asks for.
        let responseKey: String
        /// The field as written.
        let field: QueryField
        /// The key in the record when the field has no arguments (so no variables to resolve).
        let storeKey: String?
        /// The plan of the field's own selections; `nil` for a scalar.
        let child: SelectionPlan?

        /// The key of the field in a record, with `variables` resolved.
        func key(variables: [String: JSONValue]) -> String {
            storeKey ?? FieldKey.make(field, variables: variables)
        }
    }

    let selections: [QuerySelection]
    let fields: [Field]

    init(_ selections: [QuerySelection]) {
        self.selections = selections
        // Fields are merged by response key, as GraphQL merges them: a field selected again (in a fragment)
        // adds its selections to the first. A fragment on another type (or an interface) is read like the
        // tree reader reads it: its fields apply when they are stored.
        var order: [String] = []
        var merged: [String: (field: QueryField, selections: [QuerySelection])] = [:]
        func flatten(_ selections: [QuerySelection]) {
            for selection in selections {
                switch selection {
                case .field(let field):
                    if merged[field.responseKey] == nil {
                        order.append(field.responseKey)
                        merged[field.responseKey] = (field, field.selections)
                    } else {
                        merged[field.responseKey]?.selections += field.selections
                    }
                case .fragment(_, let inner):
                    flatten(inner)
                }
            }
        }
        flatten(selections)
        let fields = order.compactMap { key -> Field? in
            guard let (field, selections) = merged[key] else { return nil }
            return Field(
                responseKey: key, field: field, storeKey: field.arguments.isEmpty ? field.name : nil,
                child: selections.isEmpty ? nil : SelectionPlan(selections))
        }
        self.fields = fields
    }

    /// The field the response key names, if selected.
    func field(_ responseKey: String) -> Field? {
        for field in fields where field.responseKey == responseKey { return field }
        return nil
    }

    static func == (lhs: SelectionPlan, rhs: SelectionPlan) -> Bool { lhs.selections == rhs.selections }
    func hash(into hasher: inout Hasher) { hasher.combine(selections) }
}
