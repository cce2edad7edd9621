import Gateway
import Testing

/// The static file server's path check works on bytes and scalars: a Swift character can hold a slash (a
/// prepended mark before it: U+06DD with `/` is one character) or start with a dot without being one (`.` with a
/// combining accent), which the http fuzz target found (`Tools/fuzz/regressions/http`).
@Suite struct SafePathTests {
    @Test func segmentsAreSplitAtEverySlash() {
        #expect(SafePath.segments("/img/%DB%9D/logo.svg", below: "/") == ["img", "\u{6DD}", "logo.svg"])
        #expect(SafePath.segments("/img/\u{6DD}/logo.svg", below: "/") == ["img", "\u{6DD}", "logo.svg"])
        #expect(SafePath.segments("/img/%CC%81x", below: "/") == ["img", "\u{301}x"])
        #expect(SafePath.segments("/vendor/leaflet/%CC%81", below: "/vendor/leaflet/") == ["\u{301}"])
    }

    @Test func aDotWithAMarkIsStillADot() {
        #expect(SafePath.segments("/img/.%CC%81/secret.txt", below: "/") == nil)
        #expect(SafePath.segments("/.%CC%81%CC%81", below: "/") == nil)
        #expect(SafePath.segments("/img/%DB%9D/..", below: "/") == nil)
    }
}
