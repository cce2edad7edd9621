/// Records the readings heard during a time window: a live scanner or a recording being replayed.
public protocol SurveyRecorder {
    /// Records for `seconds` and returns what was heard, in time order. A replay returns an empty array when the
    /// recording is exhausted.
    mutating func record(seconds: Double) async throws -> [SurveyReading]
}

/// A recorder that can run dry (a replayed recording): an empty window means the recording has ended.
public protocol ExhaustibleRecorder: SurveyRecorder {}
