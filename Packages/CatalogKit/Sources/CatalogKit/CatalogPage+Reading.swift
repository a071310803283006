import APICore
import Foundation

// A catalog page read straight from its bytes (`JSONReader`), as `Decodable` reads it: the first screen's page at
// every launch, with no `JSONValue` built in between. A body it does not take (a member of another type, a key
// twice, malformed bytes) is left to `DataEnvelope.decode` (`CatalogPage.decodeEnvelope`).
extension CatalogPage {
    /// The page in a success envelope: `success` a Boolean, `data` the page.
    static func readEnvelope(_ reader: inout JSONReader) throws(JSONParseError) -> CatalogPage {
        var members = JSONReader.Members()
        var page = CatalogPage(pillars: [], pagination: nil)
        try reader.beginObject()
        while let key = try reader.nextKey() {
            switch key {
            case "success":
                try members.take(0)
                _ = try reader.bool()
            case "data":
                try members.take(1)
                page = try CatalogPage(reading: &reader)
            default: try reader.skipValue()
            }
        }
        try members.require(0)
        try members.require(1)
        return page
    }

    /// `pillars` required, `uncategorized_funnels` and `pagination` absent or `null` when there are none.
    init(reading reader: inout JSONReader) throws(JSONParseError) {
        var members = JSONReader.Members()
        var pillars: [PillarWithFunnels] = []
        var uncategorized: [CatalogFunnel] = []
        var pagination: CatalogPagination?
        try reader.beginObject()
        while let key = try reader.nextKey() {
            switch key {
            case "pillars":
                try members.take(0)
                try reader.beginArray()
                while try reader.nextElement() { pillars.append(try PillarWithFunnels(reading: &reader)) }
            case "uncategorized_funnels":
                try members.take(1)
                if try !reader.readsNull() { uncategorized = try CatalogFunnel.all(reading: &reader) }
            case "pagination":
                try members.take(2)
                if try !reader.readsNull() { pagination = try CatalogPagination(reading: &reader) }
            default: try reader.skipValue()
            }
        }
        try members.require(0)
        self.init(pillars: pillars, uncategorizedFunnels: uncategorized, pagination: pagination)
    }
}

extension PillarWithFunnels {
    /// A pillar and its funnels, both required.
    init(reading reader: inout JSONReader) throws(JSONParseError) {
        var members = JSONReader.Members()
        var pillar = CatalogPillar(id: "", title: "")
        var funnels: [CatalogFunnel] = []
        try reader.beginObject()
        while let key = try reader.nextKey() {
            switch key {
            case "pillar":
                try members.take(0)
                pillar = try CatalogPillar(reading: &reader)
            case "funnels":
                try members.take(1)
                funnels = try CatalogFunnel.all(reading: &reader)
            default: try reader.skipValue()
            }
        }
        try members.require(0)
        try members.require(1)
        self.init(pillar: pillar, funnels: funnels)
    }
}

extension CatalogPillar {
    /// `id` and `title` required.
    init(reading reader: inout JSONReader) throws(JSONParseError) {
        var members = JSONReader.Members()
        self.init(id: "", title: "")
        try reader.beginObject()
        while let key = try reader.nextKey() {
            switch key {
            case "id":
                try members.take(0)
                id = try reader.string()
            case "title":
                try members.take(1)
                title = try reader.string()
            default: try reader.skipValue()
            }
        }
        try members.require(0)
        try members.require(1)
    }
}

extension CatalogFunnel {
    /// An array of funnels.
    static func all(reading reader: inout JSONReader) throws(JSONParseError) -> [CatalogFunnel] {
        var funnels: [CatalogFunnel] = []
        try reader.beginArray()
        while try reader.nextElement() { funnels.append(try CatalogFunnel(reading: &reader)) }
        return funnels
    }

    /// `id`, `slug` and `title` required, every other member absent, `null` or of its type.
    init(reading reader: inout JSONReader) throws(JSONParseError) {
        var members = JSONReader.Members()
        self.init(id: "", slug: "", title: "")
        try reader.beginObject()
        while let key = try reader.nextKey() {
            switch key {
            case "id":
                try members.take(0)
                id = try reader.string()
            case "slug":
                try members.take(1)
                slug = try reader.string()
            case "title":
                try members.take(2)
                title = try reader.string()
            case "description":
                try members.take(3)
                description = try reader.optionalString()
            case "isActive":
                try members.take(4)
                isActive = try reader.optionalBool()
            case "tier":
                try members.take(5)
                tier = try reader.optionalString()
            case "version":
                try members.take(6)
                version = try reader.optionalInt()
            case "updatedAt":
                try members.take(7)
                updatedAt = try reader.optionalString()
            default: try reader.skipValue()
            }
        }
        for place in 0..<3 { try members.require(place) }
    }
}

extension CatalogPagination {
    /// `limit` and `hasMore` required, `nextCursor` absent or `null` on the last page.
    init(reading reader: inout JSONReader) throws(JSONParseError) {
        var members = JSONReader.Members()
        self.init(limit: 0, hasMore: false, nextCursor: nil)
        try reader.beginObject()
        while let key = try reader.nextKey() {
            switch key {
            case "limit":
                try members.take(0)
                limit = try reader.int()
            case "hasMore":
                try members.take(1)
                hasMore = try reader.bool()
            case "nextCursor":
                try members.take(2)
                nextCursor = try reader.optionalString()
            default: try reader.skipValue()
            }
        }
        try members.require(0)
        try members.require(1)
    }
}
