// The add_subdirectory consumer: locks only (shedlock::sqlite), so the test builds just the
// libraries a locks-only application needs.
#include <shedlock/providers/sqlite_lock_provider.hpp>

#include <iostream>

int main(int argc, char** argv) {
    shedlock::providers::sqlite_options options;
    options.path = argc > 1 ? argv[1] : "consumer.db";
    options.create_schema_if_missing = true;
    auto provider = shedlock::providers::make_sqlite_lock_provider(options);
    auto held = provider->try_lock({"consumer", std::chrono::seconds{10}});
    if (!held) return 1;
    std::cout << "acquired with fencing token " << held->fencing_token().value_or(-1) << "\n";
    return 0;
}
