extension StringProtocol {
    /// The text's ASCII letters and digits, lower-cased, each run of anything else between them one `separator`,
    /// none at either end; empty when nothing is left. Non-ASCII letters are separators, but a letter written with
    /// a combining accent keeps its base letter (`e` of `e` + U+0301). Registry ids of imported names use `-`, Home
    /// Assistant's entity ids `_` (as its `slugify`).
    public func asciiSlug(separator: Character) -> String {
        var slug = ""
        var gap = false
        for scalar in lowercased().unicodeScalars {
            if (scalar >= "a" && scalar <= "z") || (scalar >= "0" && scalar <= "9") {
                if gap && !slug.isEmpty { slug.append(separator) }
                slug.unicodeScalars.append(scalar)
                gap = false
            } else {
                gap = true
            }
        }
        return slug
    }
}
