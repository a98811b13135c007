import Foundation

// What a launch does beyond decoding: writing an upgraded archive back, keeping the previous one
// until the upgraded one has loaded, and saving beside an archive that cannot be read.

extension StateArchive {
    /// The backend, when it can keep data beside the archive; `nil` for a backend of the app's own.
    private var siblings: (any SiblingStorage)? { backend as? any SiblingStorage }

    /// Where saves go while the archive cannot be read.
    private var unmergedStorage: (any SiblingStorage)? {
        siblings?.sibling(ArchiveSiblings.unmergedSuffix)
    }

    // MARK: Loading and writing back

    /// Loads as ``load()`` does, adding to `problems` a write-back that failed.
    ///
    /// An archive that loads as it is removes the previous archives kept beside it: it has loaded
    /// once. One that was upgraded (migrated, or filled with defaults) is written back, after the
    /// checks of a save, with its bytes kept beside it as the previous archive of its version,
    /// under a name no other data holds.
    /// A load that needs migrations takes the values of members they add from the state
    /// `defaultState` makes, when it makes one.
    func load(reporting problems: inout [RestoreProblem], advisingFrom defaultState: () -> State?)
        throws(PersistenceError) -> State?
    {
        try sharedLocation.exclusively { () throws(PersistenceError) -> State? in
            var data: Data?
            var loaded: (state: State, upgraded: Bool, archive: Data?)?
            do throws(PersistenceError) {
                data = try backend.read(limit: sizeLimit)
                if let data { loaded = try decodeNotingUpgrade(data, advisingFrom: defaultState) }
            } catch {
                sharedLocation.holdsUnreadableData = true
                // The types do not read a state of their own version, as archived or as the
                // migrations made it: they changed without a new `schemaVersion`.
                if case .needsMigration = error.kind {
                    sharedLocation.failedAtOwnVersion = true
                    if let data, ArchiveSiblings.leadingSchemaVersion(in: data) == schemaVersion {
                        reportTypesChangedWithoutANewVersion(error)
                    }
                } else {
                    sharedLocation.failedAtOwnVersion = false
                }
                throw error
            }
            sharedLocation.holdsUnreadableData = false
            sharedLocation.failedAtOwnVersion = false
            guard let data, let loaded else { return nil }
            if let siblings {
                if loaded.upgraded {
                    // The copies already kept stay: this archive is not yet the upgraded one, and
                    // the copy of this one takes a name none of them holds.
                    do throws(PersistenceError) {
                        try writeBack(loaded.state, as: loaded.archive, keeping: data, in: siblings)
                    } catch {
                        problems.append(.notWrittenBack(error))
                    }
                } else {
                    removePrevious(siblings)
                }
            }
            return loaded.state
        }
    }

    /// Tells the developer, in a debug build, that the types do not read an archive of their own
    /// version: whatever the app does with the failed load, this is the build's mistake, not the
    /// user's, and a release of it would write saves tagged with a version whose shape they lack.
    private func reportTypesChangedWithoutANewVersion(_ error: PersistenceError) {
        RuntimeWarning.report(
            "The types of \(backend.location) do not read its archive, which is of their own "
                + "schemaVersion \(schemaVersion): they changed without a new schemaVersion, or a later "
                + "build wrote the archive with changed types under this version. A release with these "
                + "types writes archives tagged \(schemaVersion) in a shape version \(schemaVersion)'s "
                + "types cannot read, and that a later build migrates as version \(schemaVersion)'s. "
                + "\(error)")
    }

    /// Writes `state` as the archive, after the checks of a save. `previous`, the bytes it replaces,
    /// is kept first beside it under a name no other data has; when the archive cannot be written,
    /// that copy is removed again, as the archive is unchanged.
    ///
    /// `archive`, when given, is the upgraded archive the load decoded `state` from with
    /// `JSONDecoder` alone: it passed a save's checks as it loaded, so it is written as it is,
    /// without encoding the state again, unless a save would leave members out of it.
    private func writeBack(
        _ state: State, as archive: Data? = nil, keeping previous: Data?, in siblings: any SiblingStorage
    ) throws(PersistenceError) {
        let envelope: Data
        if let archive, !excludesUnderscoredKeys {
            if archive.count > sizeLimit {
                throw PersistenceError(
                    .tooLarge(bytes: archive.count, limit: sizeLimit), stage: .save,
                    location: backend.location)
            }
            envelope = archive
        } else {
            let snapshot = SnapshotCoder.encode(state, version: 0, with: SnapshotCoder.makeEncoder())
            envelope = try prepare(snapshot: snapshot, roundTripped: false).envelope
        }
        var kept: (any SiblingStorage)?
        if let previous {
            let version = ArchiveSiblings.schemaVersion(in: previous) ?? 0
            let suffix = ArchiveSiblings.previousSuffix(version: version)
            // A copy of these very bytes, which a write-back that did not finish kept, serves.
            let existing = siblings.sibling(suffix)
            if (try? existing.read(limit: sizeLimit)) != previous {
                let storage = unused(suffix, in: siblings)
                try storage.write(previous)
                kept = storage
            }
        }
        do {
            try backend.write(envelope)
        } catch {
            try? kept?.remove()
            throw error
        }
    }

    /// The storage beside the archive under `suffix`, or `suffix-2`, `-3`… when that holds data.
    private func unused(_ suffix: String, in siblings: any SiblingStorage) -> any SiblingStorage {
        var storage = siblings.sibling(suffix)
        var copy = 1
        while storage.exists() {
            copy += 1
            storage = siblings.sibling(suffix + "-\(copy)")
        }
        return storage
    }

    /// Removes the previous archives kept beside the archive, now that it has loaded. One that
    /// cannot be removed stays until a later load.
    private func removePrevious(_ siblings: any SiblingStorage) {
        for suffix in siblings.siblingSuffixes(startingWith: ArchiveSiblings.previousPrefix)
        where ArchiveSiblings.previousVersion(of: suffix) != nil {
            try? siblings.sibling(suffix).remove()
        }
    }

    /// The state of the newest previous archive kept beside the archive, now that there is none,
    /// upgraded and written back as the archive; `nil` when none is kept or it does not load, in
    /// which case it is set aside.
    private func loadPrevious(_ problems: inout [RestoreProblem]) -> State? {
        guard let siblings else { return nil }
        return sharedLocation.exclusively { () -> State? in
            guard !siblings.exists() else { return nil }
            let newest = siblings.siblingSuffixes(startingWith: ArchiveSiblings.previousPrefix)
                .compactMap { suffix in ArchiveSiblings.previousVersion(of: suffix).map { (suffix, $0) } }
                .max { ($0.1.version, $0.1.copy) < ($1.1.version, $1.1.copy) }
            guard let suffix = newest?.0 else { return nil }
            let previous = siblings.sibling(suffix)
            let state: State
            do throws(PersistenceError) {
                guard let data = try previous.read(limit: sizeLimit) else { return nil }
                state = try decode(data, at: previous)
            } catch {
                let keptAt = try? previous.setAside(suffix: ArchiveFormat.corruptSuffix(at: Date()))
                problems.append(.setAside(error, at: keptAt))
                return nil
            }
            problems.append(.restoredPrevious(from: previous.location))
            do throws(PersistenceError) {
                try writeBack(state, keeping: nil, in: siblings)
            } catch {
                problems.append(.notWrittenBack(error))
            }
            return state
        }
    }

    /// Decodes data kept beside the archive, in `storage`, with errors that name it.
    ///
    /// A state of an earlier version marked as of an unsure one (see
    /// ``ArchiveFormat/markingVersionUnsure(_:version:)``) was saved by types that did not read
    /// their own version, so its shape is theirs, not that version's, and a migration that changes
    /// values (a conversion) may already be done. It is read as the current version (members the
    /// current types add take their ``ArchiveDefaults``) when the current types read it so; else
    /// after the migrations from its version that only reshape it (renaming, removing, adding
    /// members); and through all of them only when neither reads.
    private func decode(_ data: Data, at storage: any SiblingStorage) throws(PersistenceError) -> State {
        do {
            // Saved unsure by this very version: what is saved next is just as unsure.
            if ArchiveFormat.retaggingUnsure(data, version: schemaVersion, as: schemaVersion) != nil {
                sharedLocation.failedAtOwnVersion = true
            }
            if let version = ArchiveSiblings.leadingSchemaVersion(in: data), version < schemaVersion,
                let current = ArchiveFormat.retaggingUnsure(data, version: version, as: schemaVersion)
            {
                if let asIs = try? decodeNotingUpgrade(current) { return asIs.state }
                if let reshaped = reshaping(current, from: version),
                    let state = try? decodeNotingUpgrade(reshaped).state
                {
                    return state
                }
            }
            return try decodeNotingUpgrade(data).state
        } catch {
            throw error.naming(storage.location)
        }
    }

    /// `archive`, an archive of the current version, with the state changed by the migrations
    /// from `version` on that only reshape it, in order; `nil` when it cannot be read as JSON.
    private func reshaping(_ archive: Data, from version: Int) -> Data? {
        guard case .object(var envelope)? = try? JSONValue(parsing: archive),
            var state = envelope.removeValue(forKey: "state")
        else { return nil }
        for step in version..<schemaVersion {
            for migration in migrations[step] ?? [] { migration.reshape?(&state) }
        }
        return ArchiveFormat.envelope(
            schemaVersion: schemaVersion, state: state.data,
            floatStrings: SnapshotCoder.declaredFloatStrings(in: archive))
    }

    // MARK: Restoring

    /// Restores as ``restore(default:onProblem:)`` does, adding what the user should hear of to
    /// `problems`; `nil` when it starts from the default.
    func restore(reporting problems: inout [RestoreProblem], advisingFrom defaultState: () -> State?)
        -> State?
    {
        var state: State?
        do {
            state = try load(reporting: &problems, advisingFrom: defaultState)
        } catch {
            let moved: String?
            do throws(PersistenceError) {
                guard error.kind.isDamage else { throw error }
                moved = try setAside()
            } catch {
                return resumeUnmerged(after: error, &problems)
            }
            if let moved { problems.append(.setAside(error, at: moved)) }
            state = loadPrevious(&problems)
        }
        if let unmerged = unmergedStorage, unmerged.exists() {
            problems.append(.unmerged(at: unmerged.location))
        }
        return state
    }

    /// The unmerged state an earlier launch saved beside the archive, which failed to load with
    /// `error`: the state saves go on from. A damaged one is set aside, and the app starts from the
    /// default; one that cannot be read otherwise is kept, and saves are refused.
    private func resumeUnmerged(after error: PersistenceError, _ problems: inout [RestoreProblem]) -> State? {
        guard let unmerged = unmergedStorage else {
            problems.append(.unreadable(error, savingTo: nil, resumed: false))
            return nil
        }
        var found: [RestoreProblem] = []
        let (state, saving) = sharedLocation.exclusively { () -> (State?, Bool) in
            do throws(PersistenceError) {
                guard let data = try unmerged.read(limit: sizeLimit) else {
                    sharedLocation.unmerged = .known
                    return (nil, true)
                }
                let state = try decode(data, at: unmerged)
                sharedLocation.unmerged = .known
                return (state, true)
            } catch {
                if error.kind.isDamage,
                    let moved = try? unmerged.setAside(suffix: ArchiveFormat.corruptSuffix(at: Date()))
                {
                    sharedLocation.unmerged = .known
                    found.append(.setAside(error, at: moved))
                    return (nil, true)
                }
                sharedLocation.unmerged = .unreadable
                found.append(.unreadable(error, savingTo: nil, resumed: false))
                return (nil, false)
            }
        }
        problems.append(.unreadable(error, savingTo: saving ? unmerged.location : nil, resumed: state != nil))
        problems += found
        return state
    }

    // MARK: Saving beside

    /// Saves `envelope` as the unmerged state, since the archive holds data that failed to load;
    /// call it from `sharedLocation.exclusively`.
    ///
    /// It never replaces an unmerged state this process has not loaded or written, nor one that
    /// failed to load: the save is refused with
    /// ``PersistenceError/Kind/wouldOverwriteUnmergedState``.
    func saveBeside(_ envelope: Data) throws(PersistenceError) {
        guard let unmerged = unmergedStorage else {
            throw PersistenceError(.wouldOverwriteUnreadableArchive, stage: .save, location: location)
        }
        switch sharedLocation.unmerged {
        case .known:
            break
        case .unknown:
            if unmerged.exists() {
                throw PersistenceError(
                    .wouldOverwriteUnmergedState, stage: .save, location: unmerged.location)
            }
        case .unreadable:
            throw PersistenceError(.wouldOverwriteUnmergedState, stage: .save, location: unmerged.location)
        }
        try unmerged.write(
            sharedLocation.failedAtOwnVersion
                ? ArchiveFormat.markingVersionUnsure(envelope, version: schemaVersion) : envelope)
        sharedLocation.unmerged = .known
    }

    // MARK: The unmerged state

    /// Loads the unmerged state: what was saved beside the archive while it could not be read, for
    /// the app to merge now that it can be; `nil` when there is none, or while the archive still
    /// cannot be read in this process.
    ///
    /// While an archive cannot be read (it needs a migration, comes from a newer version, or the
    /// system refuses it), ``restore(default:onProblem:)`` starts from the unmerged state, or from
    /// the default, and saves go there, beside the archive: `AppState.json.unmerged` beside
    /// `AppState.json`, or the key `com.example.myapp.AppState.unmerged` beside
    /// `com.example.myapp.AppState`. Once a build reads the archive, it restores the archive and
    /// reports ``RestoreProblem/unmerged(at:)``; the app then merges both, saves the result, and
    /// removes the unmerged state. The library never removes it on its own.
    ///
    /// ```swift
    /// var state = archive.restore(default: AppState())
    /// if let unmerged = try archive.loadUnmerged() {
    ///     state.merge(unmerged)  // the app's own rule: keep what the user did in both
    ///     try archive.save(state)  // the merged state is in the archive,
    ///     try archive.removeUnmerged()  // so the unmerged one can go
    /// }
    /// ```
    ///
    /// It is read as ``load()`` reads the archive, migrations and ``ArchiveDefaults`` included, and
    /// never changed. While the archive cannot be read it returns `nil`: the app already runs on
    /// that state, and saves to it.
    ///
    /// - Returns: The unmerged state, or `nil`; always `nil` on a backend of the app's own, which
    ///   keeps none.
    /// - Throws: ``PersistenceError`` naming the unmerged state's location when it cannot be read.
    public func loadUnmerged() throws(PersistenceError) -> State? {
        guard let unmerged = unmergedStorage else { return nil }
        return try sharedLocation.exclusively { () throws(PersistenceError) -> State? in
            if sharedLocation.holdsUnreadableData { return nil }
            guard let data = try unmerged.read(limit: sizeLimit) else { return nil }
            let state = try decode(data, at: unmerged)
            sharedLocation.unmerged = .known
            return state
        }
    }

    /// Removes the unmerged state, once the app has merged it and saved the merged state.
    ///
    /// ```swift
    /// try archive.removeUnmerged()
    /// ```
    ///
    /// While the archive cannot be read in this process, it keeps it and returns `false`: saves go
    /// there. See ``loadUnmerged()``.
    ///
    /// - Returns: `false` when it was kept because the archive cannot be read; `true` otherwise,
    ///   also when there was none.
    /// - Throws: ``PersistenceError`` when it cannot be removed.
    @discardableResult
    public func removeUnmerged() throws(PersistenceError) -> Bool {
        guard let unmerged = unmergedStorage else { return true }
        return try sharedLocation.exclusively { () throws(PersistenceError) -> Bool in
            if sharedLocation.holdsUnreadableData { return false }
            try unmerged.remove()
            sharedLocation.unmerged = .known
            return true
        }
    }
}
