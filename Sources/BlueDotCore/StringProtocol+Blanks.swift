extension StringProtocol {
    /// The text without spaces and tabs at either end (configuration values, numbers typed by hand).
    public func trimmingBlanks() -> String {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isBlank($0) }) else { return "" }
        let last = lastIndex(where: { !isBlank($0) })!
        return String(self[first...last])
    }
}
