/// Whether text taken verbatim (a plugin's arguments, Lua code) leaves something open, so the REPL
/// reads another line before running it.
enum BracketBalance {
    /// Whether `text` closes every `{`, `[`, `(` and quoted string it opens. A quote opens a string
    /// only at the start of a word (`o'brien` is a word); a closer without an opener makes the
    /// text finished (the command reports what is wrong).
    static func isClosed(plain text: String) -> Bool {
        let characters = Array(text)
        var depth = 0
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character == "\"" || character == "'", index == 0 || startsWord(after: characters[index - 1]) {
                index += 1
                while index < characters.count && characters[index] != character {
                    if characters[index] == "\\" { index += 1 }
                    index += 1
                }
                if index >= characters.count { return false }
            } else if "{[(".contains(character) {
                depth += 1
            } else if "}])".contains(character) {
                if depth == 0 { return true }
                depth -= 1
            }
            index += 1
        }
        return depth == 0
    }

    /// Whether a quote after `character` starts a string.
    private static func startsWord(after character: Character) -> Bool {
        character.isWhitespace || "{[(,:=".contains(character)
    }

    /// Whether the Lua chunk `text` closes every bracket, string, long string (`[[...]]`,
    /// `[==[...]==]`), long comment and block it opens. Blocks are counted from their keywords
    /// (`function`, `do`, `if` and `repeat` open one; `end` and `until` close one), which is
    /// enough to tell that a line like `transaction /n function(v)` goes on.
    static func isClosed(lua text: String) -> Bool {
        let characters = Array(text)
        var brackets = 0
        var blocks = 0
        var index = 0
        /// The level of a long bracket opening at `start` (`[[` is 0, `[==[` is 2).
        func longBracket(at start: Int) -> Int? {
            guard start < characters.count, characters[start] == "[" else { return nil }
            var cursor = start + 1
            while cursor < characters.count && characters[cursor] == "=" { cursor += 1 }
            guard cursor < characters.count, characters[cursor] == "[" else { return nil }
            return cursor - start - 1
        }
        /// The index after the long bracket of `level` that closes one opened before `start`.
        func closeLongBracket(level: Int, from start: Int) -> Int? {
            var cursor = start
            while cursor < characters.count {
                if characters[cursor] == "]" {
                    var probe = cursor + 1
                    while probe < characters.count && characters[probe] == "=" { probe += 1 }
                    if probe < characters.count, characters[probe] == "]", probe - cursor - 1 == level { return probe + 1 }
                }
                cursor += 1
            }
            return nil
        }
        while index < characters.count {
            let character = characters[index]
            if character == "-", index + 1 < characters.count, characters[index + 1] == "-" {
                index += 2
                if let level = longBracket(at: index) {
                    guard let after = closeLongBracket(level: level, from: index + level + 2) else { return false }
                    index = after
                } else {
                    while index < characters.count && !characters[index].isNewline { index += 1 }
                }
                continue
            }
            if let level = longBracket(at: index) {
                guard let after = closeLongBracket(level: level, from: index + level + 2) else { return false }
                index = after
                continue
            }
            if character == "\"" || character == "'" {
                index += 1
                while index < characters.count && characters[index] != character {
                    if characters[index].isNewline { return true }  // Lua reports the broken string
                    if characters[index] == "\\" { index += 1 }
                    index += 1
                }
                if index >= characters.count { return false }
                index += 1
                continue
            }
            if character.isLetter || character == "_" {
                let start = index
                while index < characters.count && (characters[index].isLetter || characters[index].isNumber || characters[index] == "_") {
                    index += 1
                }
                switch String(characters[start..<index]) {
                case "function", "do", "if", "repeat": blocks += 1
                case "end", "until": blocks -= 1
                default: break
                }
                continue
            }
            if "{[(".contains(character) {
                brackets += 1
            } else if "}])".contains(character) {
                if brackets == 0 { return true }
                brackets -= 1
            }
            index += 1
        }
        return brackets <= 0 && blocks <= 0
    }
}
