import Testing
import ShelfJSON

struct JSONObjectTests {
    @Test func lookupReturnsTheLastValueForADuplicateKey() {
        let object = JSONObject([("a", 1), ("b", 2), ("a", 3)])
        #expect(object["a"] == 3)
        #expect(object["b"] == 2)
        #expect(object["missing"] == nil)
        #expect(object.keys == ["a", "b", "a"])
        #expect(object.count == 3)
        #expect(!object.isEmpty)
    }

    @Test func settingReplacesTheLastMemberOrAppends() {
        var object: JSONObject = ["a": 1, "b": 2, "a": 3]
        object["a"] = "x"
        object["c"] = true
        #expect(object == JSONObject([("a", 1), ("b", 2), ("a", "x"), ("c", true)]))
    }

    @Test func settingNilRemovesEveryMemberWithThatKey() {
        var object: JSONObject = ["a": 1, "b": 2, "a": 3]
        object["a"] = nil
        #expect(object == ["b": 2])
    }

    @Test func appendKeepsDuplicates() {
        var object = JSONObject()
        #expect(object.isEmpty)
        object.append("k", 1)
        object.append("k", 2)
        #expect(object.keys == ["k", "k"])
        #expect(object["k"] == 2)
    }

    @Test func equalityAndHashingFollowMemberOrder() {
        let ab: JSONObject = ["a": 1, "b": 2]
        let ba: JSONObject = ["b": 2, "a": 1]
        #expect(ab == JSONObject([("a", 1), ("b", 2)]))
        #expect(ab != ba)
        #expect(ab.hashValue == JSONObject([("a", 1), ("b", 2)]).hashValue)
        #expect(Set<JSONValue>([.object(ab), .object(ab), .object(ba)]).count == 2)
        #expect(ab != ["a": 1])
        #expect(ab != ["a": 1, "b": 3])
    }
}
