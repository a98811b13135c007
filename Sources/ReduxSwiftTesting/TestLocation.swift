/// Where a ``TestStore`` assertion was written: the place its failures point at.
struct TestLocation {
    let fileID: String
    let filePath: StaticString
    let line: UInt
    let column: UInt
}
