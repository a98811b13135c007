/// Something ``StateArchive/restore(default:onProblem:)`` met at launch that the user should hear
/// of: data that could not be read, and where it and the user's changes are kept.
///
/// Show its ``description`` to the user, or act on its case:
///
/// ```swift
/// let state = archive.restore(default: AppState()) { problem in
///     switch problem {
///     case .unreadable(_, let savingTo?, _):
///         print("This version cannot read your data; your changes are kept in \(savingTo).")
///     default:
///         print(problem)
///     }
/// }
/// ```
///
/// One launch may meet several: a damaged archive set aside and the previous archive restored in
/// its place, or an archive that loads with an unmerged state beside it.
public enum RestoreProblem: Sendable, Equatable, CustomStringConvertible {
    /// The archive cannot be read by this build, and is left where it is: no save replaces it.
    ///
    /// It needs a migration, was written by a newer version, is refused by the system, or is
    /// damaged and could not be moved aside. The app runs on the unmerged state an earlier launch
    /// saved beside it when `resumed` is `true`, otherwise on the default state. Its saves go to
    /// the unmerged state at `savingTo` (`AppState.json.unmerged` beside `AppState.json`), for a
    /// build that reads both to merge (see ``StateArchive/loadUnmerged()``); when `savingTo` is
    /// `nil` (a backend of the app's own, or an unmerged state that cannot be read either), saves
    /// are refused with ``PersistenceError/Kind/wouldOverwriteUnreadableArchive`` or
    /// ``PersistenceError/Kind/wouldOverwriteUnmergedState``.
    case unreadable(PersistenceError, savingTo: String?, resumed: Bool)

    /// Damaged data (empty, not JSON, not an archive) was moved to `at`, where no save replaces it,
    /// and is no longer used; `nil` when it could not be moved.
    ///
    /// The error's location says which data: the archive, the unmerged state, or a previous
    /// archive kept at an upgrade.
    case setAside(PersistenceError, at: String?)

    /// The archive was damaged, and the state comes instead from the previous archive, kept at
    /// `from` when the last upgrade wrote the archive back, upgraded again. What was saved since
    /// that upgrade is lost; the damaged archive is kept aside.
    case restoredPrevious(from: String)

    /// The archive loaded, and beside it, at `at`, is an unmerged state: what a launch that could
    /// not read the archive saved. Merge it with ``StateArchive/loadUnmerged()`` and
    /// ``StateArchive/removeUnmerged()``; until then it is reported at every launch.
    case unmerged(at: String)

    /// The archive was upgraded as it loaded (migrated, or filled with the defaults of
    /// ``ArchiveDefaults`` types) but could not be written back: the load succeeded, the archive
    /// is as it was, and the next launch upgrades it again.
    case notWrittenBack(PersistenceError)

    /// What happened and what it means for the user's data, in a few sentences.
    public var description: String {
        switch self {
        case .unreadable(let error, let savingTo, let resumed):
            let start =
                resumed
                ? "The app continues from the changes saved beside it by an earlier launch"
                : "The app starts from the default state"
            guard let savingTo else {
                return
                    "\(error) It is left as it is. \(start), and no change can be saved until it is set "
                    + "aside or loads."
            }
            return
                "\(error) It is left as it is, and not saved over. \(start); changes are saved beside it, "
                + "in \(savingTo), for a version that reads both to merge."
        case .setAside(let error, let at):
            guard let at else { return "\(error) It could not be moved aside, and is no longer used." }
            return "\(error) It was moved to \(at), and is no longer used."
        case .restoredPrevious(let from):
            return
                "The state was restored from \(from), the archive as it was before the last upgrade, "
                + "upgraded again: changes saved since that upgrade are lost."
        case .unmerged(let at):
            return
                "Changes saved while the archive could not be read are kept in \(at), beside it, and are "
                + "not in the state restored: merge them (StateArchive.loadUnmerged()), then remove them "
                + "(StateArchive.removeUnmerged())."
        case .notWrittenBack(let error):
            return
                "\(error) The archive loaded, upgraded, but was not written back: it is as it was, and "
                + "the next launch upgrades it again."
        }
    }
}
