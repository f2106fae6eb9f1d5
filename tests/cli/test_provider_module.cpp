// A provider module for the CLI's module tests (cli_modules_test.cpp) that registers no backend
// (or, when told to, one that opens nothing).
// tests/CMakeLists.txt builds it three times, with the note and factory of module_abi.hpp:
// - with this build's ABI and identity (TEST_MODULE_BUILD = SHEDLOCK_MODULE_BUILD): a module the
//   CLI accepts and runs; a planted copy proves that it ran by creating $SHEDLOCK_TEST_MODULE_MARKER;
// - with another build's identity, and with another module ABI: modules whose code must never run;
//   if it does, the factory says so in the marker and then dies as such a module did.
// Each creates $SHEDLOCK_TEST_MODULE_LOADED from a static constructor, which dlopen runs before the
// module's factory: the proof that a file was not even dlopen'ed.
// With $SHEDLOCK_TEST_MODULE_SCHEME set, this build's module registers that scheme (a backend that
// opens nothing) and appends a line per registration to $SHEDLOCK_TEST_MODULE_REGISTRY: "global"
// when the registry it is given is provider_registry::global() as the module sees it (one shared
// core: the program's registry), else "other" (the program's scratch registry).
// With $SHEDLOCK_TEST_MODULE_RETRY (a URI) and $SHEDLOCK_TEST_MODULE_FDS (a file) set too, opening
// that backend looks the URI up 5 times in the program's registry (each a load of its module that
// may be refused) and appends, after each, how many descriptors the process has open.
#include "module_abi.hpp"
#include "module_build.hpp"

#include <shedlock/error.hpp>
#include <shedlock/provider_registry.hpp>
#include <shedlock/provider_uri.hpp>

#include <filesystem>

#include <cstdio>
#include <cstdlib>

SHEDLOCK_MODULE_NOTE(shedlock::cli::module_kind::provider, TEST_MODULE_ABI, TEST_MODULE_BUILD);

namespace {

__attribute__((constructor)) void record_that_dlopen_ran_it() {
    if (const char* loaded = std::getenv("SHEDLOCK_TEST_MODULE_LOADED"))
        if (std::FILE* f = std::fopen(loaded, "w")) std::fclose(f);
}

void register_test_scheme(shedlock::provider_registry& registry) {
    const char* scheme = std::getenv("SHEDLOCK_TEST_MODULE_SCHEME");
    if (scheme == nullptr) return;
    if (const char* log = std::getenv("SHEDLOCK_TEST_MODULE_REGISTRY"))
        if (std::FILE* f = std::fopen(log, "a")) {
            std::fputs(&registry == &shedlock::provider_registry::global() ? "global\n" : "other\n", f);
            std::fclose(f);
        }
    shedlock::backend_registration backend;
    backend.name = "test";
    backend.schemes = {scheme};
    if (std::getenv("SHEDLOCK_TEST_MODULE_RETRY") != nullptr)
        backend.open_session = [](const shedlock::provider_uri&, const shedlock::open_request&) -> shedlock::session_parts {
        const char* retry = std::getenv("SHEDLOCK_TEST_MODULE_RETRY");
        const char* fds = std::getenv("SHEDLOCK_TEST_MODULE_FDS");
        if (retry == nullptr || fds == nullptr) throw shedlock::configuration_error("the test backend opens nothing");
        for (int i = 0; i < 5; ++i) {
            try {
                shedlock::provider_registry::global().find(shedlock::parse_provider_uri(retry));
            } catch (const std::exception&) {
            }
            const auto open = std::distance(std::filesystem::directory_iterator("/proc/self/fd"), {});
            if (std::FILE* f = std::fopen(fds, "a")) {
                std::fprintf(f, "%ld\n", static_cast<long>(open));
                std::fclose(f);
            }
        }
        throw shedlock::configuration_error("the test backend opens nothing");
    };
    registry.add(std::move(backend));
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const shedlock::cli::provider_module_entry*
SHEDLOCK_PROVIDER_MODULE_FACTORY() {
    if (const char* marker = std::getenv("SHEDLOCK_TEST_MODULE_MARKER"))
        if (std::FILE* f = std::fopen(marker, "w")) std::fclose(f);
    if (TEST_MODULE_FOREIGN) std::abort();
    static const shedlock::cli::provider_module_entry entry{TEST_MODULE_BUILD, "test", &register_test_scheme};
    return &entry;
}
