#include <shedlock/owner_token.hpp>

#include <catch2/catch.hpp>

#include <unistd.h>

#include <set>

TEST_CASE("owner tokens are readable, unique and fit VARCHAR(255)", "[owner]") {
    std::set<std::string> seen;
    for (int i = 0; i < 10000; ++i) seen.insert(shedlock::make_owner_token());
    CHECK(seen.size() == 10000);
    const std::string token = *seen.begin();
    CHECK(token.size() <= 255);
    CHECK(token.find(":" + std::to_string(::getpid()) + ":") != std::string::npos);
    CHECK(token.rfind(shedlock::instance_id(), 0) == 0);
}
