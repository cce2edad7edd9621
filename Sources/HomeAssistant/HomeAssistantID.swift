import BlueDotCore
import Site

/// The ids BlueDot gives Home Assistant: derived from the site name and the target id alone, so a restarted solver
/// (or a second one replacing it) names the same entities, and kept to the characters Home Assistant allows in the
/// object id of a discovery topic, `[a-zA-Z0-9_-]` (integrations/mqtt, "Discovery topic"). The same text serves
/// as the entity's `unique_id`, the documented best practice for entities that have one.
enum HomeAssistantID {
    /// Longest cleaned-up name kept before the hash.
    static let maximumNameLength = 80

    /// `text` with every character outside `[a-zA-Z0-9_-]` replaced by `_` (one `_` per character).
    static func clean(_ text: String) -> String {
        String(text.map { c -> Character in
            c.isASCII && (c.isLetter || c.isNumber || c == "_" || c == "-") ? c : "_"
        })
    }

    /// The 32-bit FNV-1a hash of `text`'s UTF-8 bytes as eight lower-case hex digits: it keeps apart ids that
    /// clean up to the same text (`a:b` and `a_b`) and ids cut at the same 80 characters.
    static func hash(_ text: String) -> String {
        var h: UInt32 = 2_166_136_261
        for byte in text.utf8 {
            h = (h ^ UInt32(byte)) &* 16_777_619
        }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }

    /// A target's object id: `bluedot_<site>_<target>` cleaned and cut to 80 characters, then `_` and the hash of
    /// `<site>/<target>` (`/` cannot occur in a site name, so no two pairs hash the same text).
    static func target(site: String, target: String) -> String {
        String(clean("bluedot_" + site + "_" + target).prefix(maximumNameLength)) + "_" + hash(site + "/" + target)
    }

    /// The solver's object id: `bluedot_<site>` cleaned and cut, the hash of the site name, then `_solver` (a
    /// target's id ends in the hash, so the two never meet).
    static func solver(site: String) -> String {
        String(clean("bluedot_" + site).prefix(maximumNameLength)) + "_" + hash(site) + "_solver"
    }

    /// `text` as Home Assistant's `slugify` makes an entity's object id of it: lower case, each run of characters
    /// other than ASCII letters and digits one `_`, none at either end; `unknown` when nothing is left (Home
    /// Assistant's own fallback). Home Assistant transliterates non-ASCII letters first (`é` to `e`); BlueDot has no
    /// transliteration table and makes them `_` (`asciiSlug`), so a name meant to give a predictable entity id is
    /// best in ASCII.
    static func slug(_ text: String) -> String {
        let slug = text.asciiSlug(separator: "_")
        return slug.isEmpty ? "unknown" : slug
    }
}
