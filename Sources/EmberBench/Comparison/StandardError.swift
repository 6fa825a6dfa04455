import Foundation

/// Writes a line to standard error: progress and warnings, kept apart from the Markdown that
/// goes to standard output.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
