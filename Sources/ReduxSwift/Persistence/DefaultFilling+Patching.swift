import Foundation

// Filling by writing the defaults into the JSON: how a load that fills or migrates decodes at
// about `JSONDecoder`'s speed.
//
// The filling decoder wraps every container of every object, which costs several times a
// `JSONDecoder` decode. Most archives that need filling hold many objects of one type that all lack
// the same members (every todo lacks the `priority` that version 2 added), so the load learns
// what one object lacks, writes those members into every object at the same place, and lets
// `JSONDecoder` decode the result in a checking decode. The census then looks at every object for
// a member its type does not know, as the filling decoder looks at every filled object for a
// rename. Whatever this way cannot settle (an object that lacks a member outside the sample, an
// unknown member, a type that refuses the shortened copy) goes to the filling decoder, as before,
// so that the value and every error are the filling decoder's.

extension DefaultFilling {
    /// How many times the decode learns a place's missing members before it leaves the archive to
    /// the filling decoder.
    static let patchRounds = 16

    /// Elements an array keeps in the shortened copy that finds what is missing.
    static let probeElements = Sample.first

    /// Decodes `T` from `root`, the archive's JSON, by writing the defaults of ``ArchiveDefaults``
    /// types into the objects that lack them; `nil` when it cannot settle the archive, which the
    /// filling decoder then decodes. `root` is changed in the process: the caller keeps the bytes
    /// it came from for the filling decoder.
    ///
    /// - Returns: The value, and the JSON it decoded from: the archive with the defaults written in,
    ///   which decodes as the value with `decoder` alone.
    static func decodeByPatching<T: Decodable>(
        _ type: T.Type, root: inout JSONValue, like decoder: JSONDecoder
    ) -> (value: T, data: Data)? {
        var probing = true
        for _ in 0..<patchRounds {
            let candidate = probing ? shortened(root) : root
            let data = candidate.data
            let census = probing ? nil : MemberCensus()
            let session = FillSession(decoder: decoder, mode: .checking, census: census)
            do {
                let value = try decode(T.self, from: data, like: decoder, session: session)
                if probing {
                    probing = false
                    continue
                }
                guard let census, census.covers(root) else { return nil }
                return (value, data)
            } catch let failure as Failure {
                guard case DecodingError.keyNotFound(_, let context) = failure.underlying,
                    let lacking = failure.lacking,
                    place(lacking.codingPath) == place(context.codingPath),
                    let fill = PlaceFill(lacking, in: candidate, like: decoder)
                else {
                    // Another error: the whole archive tells whether it is the archive's own.
                    if probing {
                        probing = false
                        continue
                    }
                    return nil
                }
                guard fill.apply(to: &root) else { return nil }
            } catch {
                if probing {
                    probing = false
                    continue
                }
                return nil
            }
        }
        return nil
    }

    /// `value` with every array cut to its first ``probeElements`` elements, at every depth: the
    /// elements whose places a checking decode looks at first, at the same positions.
    private static func shortened(_ value: JSONValue) -> JSONValue {
        switch value {
        case .array(let elements): .array(elements.prefix(probeElements).map(shortened))
        case .object(let members): .object(members.mapValues(shortened))
        case .null, .bool, .number, .string: value
        }
    }
}

/// The members one place's objects lack, with their defaults: learned from one object the filling
/// decoder filled, and written into every object at the place that lacks them.
private struct PlaceFill {
    /// A member to write, with its default: one value for every object, or a new one for each when
    /// the type's `init()` gives a new one each time (a `UUID()`).
    struct Member {
        let name: String
        let constant: JSONValue?
        let fresh: (() -> JSONValue?)?
    }

    /// The objects' place, each array position and dictionary key standing for all.
    let steps: [MemberPath.Step]
    let members: [Member]
    /// Whether the type reads a member of this name.
    let knows: (String) -> Bool

    /// Learns what the object at `lacking`'s place in `root` lacks by filling it alone; `nil` when its
    /// type has no defaults or the filling decoder does not fill it cleanly.
    init?(_ lacking: DefaultFilling.LackingObject, in root: JSONValue, like decoder: JSONDecoder) {
        guard let defaultsType = lacking.type as? any ArchiveDefaults.Type,
            let object = root.value(at: lacking.codingPath), case .object = object
        else { return nil }
        let data = object.data
        let session = FillSession(decoder: decoder, mode: .filling)
        func fill<O: Decodable>(_: O.Type) -> Bool {
            (try? DefaultFilling.decode(O.self, from: data, like: decoder, session: session)) != nil
        }
        guard fill(lacking.type), let filled = session.rootMembers, !filled.filled.isEmpty,
            let keys = filled.knownKeys, let defaults = filled.defaults?.json
        else { return nil }
        let isSame = filled.defaults?.scope != nil
        var members: [Member] = []
        for member in filled.filled {
            guard let value = defaults.child(member.name) else { return nil }
            if isSame || session.defaultsJSON(of: defaultsType).json?.child(member.name) == value {
                members.append(Member(name: member.name, constant: value, fresh: nil))
            } else if member.valueType == UUID.self {
                // A `UUID()` of its own for each object, as `init()` gives, without making a whole
                // value for each.
                members.append(Member(name: member.name, constant: nil) { .string(UUID().uuidString) })
            } else {
                members.append(
                    Member(name: member.name, constant: nil) {
                        session.defaultsJSON(of: defaultsType).json?.child(member.name)
                    })
            }
        }
        steps = lacking.codingPath.map { key in
            MemberPath.isPosition(key) || MemberPath.isDictionaryKey(key) ? .each : .member(key.stringValue)
        }
        self.members = members
        let read = filled.read
        knows = { name in read.contains(name) || keys.init(stringValue: name) != nil }
    }

    /// Writes the members into every object at the place that lacks them; `false`, leaving the
    /// archive to the filling decoder, when an object that lacks one holds a member the type does
    /// not read (a removed member, an old name, or a value of another type, which must not gain
    /// members), or a new default could not be made.
    func apply(to root: inout JSONValue) -> Bool {
        var settled = true
        root.forEachObject(at: steps[...]) { object in
            guard settled, members.contains(where: { object[$0.name] == nil }) else { return }
            guard object.keys.allSatisfy(knows) else {
                settled = false
                return
            }
            for member in members where object[member.name] == nil {
                guard let value = member.constant ?? member.fresh?() else {
                    settled = false
                    return
                }
                object[member.name] = value
            }
        }
        return settled
    }
}

/// What a checking decode saw of the types at each place of an archive: the member names their
/// coding keys take, and those they read beside them.
///
/// After the decode, ``covers(_:)`` looks at every object of the archive: each member must be one
/// its place's types know. A member none knows may be an old name, which only the filling decoder
/// tells apart from a removed member.
final class MemberCensus {
    final class Place {
        var members: [String: Place] = [:]
        /// The place of every element of an array, or value of a dictionary.
        var each: Place?
        var keyTypes: [any CodingKey.Type] = []
        var read: Set<String> = []
        var isDictionary = false
        /// Whether a type read an object here.
        var isSeen = false
        func knows(_ name: String) -> Bool {
            isDictionary || keyTypes.contains { $0.init(stringValue: name) != nil } || read.contains(name)
        }
    }

    let root = Place()

    private func place(at codingPath: [any CodingKey]) -> Place {
        var place = root
        for key in codingPath {
            if MemberPath.isPosition(key) || MemberPath.isDictionaryKey(key) {
                if place.each == nil { place.each = Place() }
                place = place.each!
            } else if let next = place.members[key.stringValue] {
                place = next
            } else {
                let next = Place()
                place.members[key.stringValue] = next
                place = next
            }
        }
        return place
    }

    /// Notes that a type read the object at `codingPath` with `keys`.
    func noteObject(at codingPath: [any CodingKey], keys: any CodingKey.Type) {
        let place = place(at: codingPath)
        place.isSeen = true
        if MemberPath.isDictionaryKeyType(keys) {
            place.isDictionary = true
        } else if !place.keyTypes.contains(where: { ObjectIdentifier($0) == ObjectIdentifier(keys) }) {
            place.keyTypes.append(keys)
        }
    }

    /// Notes that a type read the member `name` of the object at `codingPath` beside its keys.
    func noteRead(_ name: String, at codingPath: [any CodingKey]) {
        place(at: codingPath).read.insert(name)
    }

    /// Whether every member of every object in `root` is one its place's types know.
    func covers(_ root: JSONValue) -> Bool {
        covers(root, at: self.root)
    }

    private func covers(_ value: JSONValue, at place: Place?) -> Bool {
        switch value {
        case .object(let members):
            guard !members.isEmpty else { return true }
            guard let place, place.isSeen else { return false }
            for (name, member) in members {
                guard place.isDictionary || place.knows(name) else { return false }
                switch member {
                case .object, .array:
                    guard covers(member, at: place.isDictionary ? place.each : place.members[name]) else {
                        return false
                    }
                case .null, .bool, .number, .string:
                    break
                }
            }
        case .array(let elements):
            for element in elements {
                guard covers(element, at: place?.each) else { return false }
            }
        case .null, .bool, .number, .string:
            break
        }
        return true
    }
}
