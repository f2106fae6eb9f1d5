// known_lock_names: which lock records the SQL provider trusts to exist, for how long, and what
// forgets them (docs/sql-providers.md, "Refused attempts").
#include <shedlock/providers/sql/known_lock_names.hpp>

#include <catch2/catch.hpp>

#include <string>

using shedlock::providers::sql::known_lock_names;
using std::chrono::milliseconds;
using std::chrono::seconds;

namespace {

const known_lock_names::time_point t0{seconds{1000}};

}  // namespace

TEST_CASE("known_lock_names: a sighting is trusted for ttl, not at or past it") {
    known_lock_names known(seconds{60});
    CHECK_FALSE(known.trusted("a", t0));
    known.record_answer("a", false, false, t0);  // the full statement refused: the record exists
    CHECK(known.trusted("a", t0));
    CHECK(known.trusted("a", t0 + seconds{59}));
    CHECK_FALSE(known.trusted("a", t0 + seconds{60}));
    CHECK_FALSE(known.trusted("a", t0 - milliseconds{1}));  // a clock that went back trusts nothing
    CHECK_FALSE(known.trusted("b", t0));
}

TEST_CASE("known_lock_names: a refused plain UPDATE is no sighting, a granted one is") {
    known_lock_names known(seconds{60});
    known.record_answer("a", true, false, t0);
    CHECK_FALSE(known.trusted("a", t0));
    known.record_answer("a", false, true, t0);  // the full statement acquired
    known.record_answer("a", true, false, t0 + seconds{50});  // refused by the UPDATE: not renewed
    CHECK_FALSE(known.trusted("a", t0 + seconds{60}));
    known.record_answer("a", true, true, t0 + seconds{50});  // taken by the UPDATE: renewed
    CHECK(known.trusted("a", t0 + seconds{100}));
}

TEST_CASE("known_lock_names: names compare byte for byte") {
    known_lock_names known(seconds{60});
    known.record_answer("Report", false, true, t0);
    CHECK_FALSE(known.trusted("report", t0));
    CHECK_FALSE(known.trusted("Report ", t0));
    CHECK(known.trusted("Report", t0));
}

TEST_CASE("known_lock_names: ttl 0 trusts nothing") {
    known_lock_names known(milliseconds{0});
    known.record_answer("a", false, true, t0);
    CHECK_FALSE(known.trusted("a", t0));
}

TEST_CASE("known_lock_names: at capacity every sighting is dropped") {
    known_lock_names known(seconds{60}, 3);
    for (const char* name : {"a", "b", "c"}) known.record_answer(name, false, true, t0);
    known.record_answer("c", false, true, t0);  // a name already there does not overflow
    CHECK(known.trusted("a", t0));
    known.record_answer("d", false, true, t0);
    CHECK_FALSE(known.trusted("a", t0));
    CHECK_FALSE(known.trusted("c", t0));
    CHECK(known.trusted("d", t0));
}

TEST_CASE("known_lock_names: forget_everywhere reaches every live cache on that table, no other") {
    auto one = known_lock_names::make_registered("ops.shedlock", seconds{60});
    auto two = known_lock_names::make_registered("ops.shedlock", seconds{60});
    auto other = known_lock_names::make_registered("shedlock", seconds{60});
    for (auto* cache : {one.get(), two.get(), other.get()}) {
        cache->record_answer("a", false, true, t0);
        cache->record_answer("b", false, true, t0);
    }
    known_lock_names::forget_everywhere("ops.shedlock", {"a"});
    CHECK_FALSE(one->trusted("a", t0));
    CHECK_FALSE(two->trusted("a", t0));
    CHECK(one->trusted("b", t0));
    CHECK(other->trusted("a", t0));
    two.reset();  // a destroyed cache is skipped
    known_lock_names::forget_everywhere("ops.shedlock", {"b"});
    CHECK_FALSE(one->trusted("b", t0));
}
