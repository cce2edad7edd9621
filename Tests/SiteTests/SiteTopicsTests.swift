import Testing

@testable import Site

@Suite struct SiteTopicsTests {
    @Test func topicsFollowTheLayoutOfFormatsMd() throws {
        let topics = try #require(SiteTopics(site: "office"))
        #expect(topics.sightings(receiver: "rx-1") == "bluedot/office/sightings/rx-1")
        #expect(topics.receiverStatus(receiver: "rx-1") == "bluedot/office/receivers/rx-1/status")
        #expect(topics.location(target: "tag") == "bluedot/office/locations/tag")
        #expect(topics.solverStatus == "bluedot/office/status")
        #expect(topics.allSightings == "bluedot/office/sightings/+")
    }

    @Test func aSiteNameIsOneTopicLevel() {
        for bad in ["", "a/b", "a+", "#", "x\0"] { #expect(SiteTopics(site: bad) == nil) }
    }
}
