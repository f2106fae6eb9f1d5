// A provider module for the CLI's module tests (cli_modules_test.cpp) that registers no backend.
// tests/CMakeLists.txt builds it twice with the version of this build:
// - with this build's identity (TEST_MODULE_BUILD = SHEDLOCK_MODULE_BUILD): a module the CLI
//   accepts and runs; a planted copy proves that it ran by creating $SHEDLOCK_TEST_MODULE_MARKER;
// - with another build's identity: a module from another build of the same version, whose code
//   must never run; if it does, it says so in the marker and then dies as such a module did.
// Either one creates $SHEDLOCK_TEST_MODULE_LOADED from a static constructor, which dlopen runs
// before any check of the module can be made: the proof that a file was not even dlopen'ed.
#include "module_build.hpp"

#include <shedlock/provider_registry.hpp>

#include <cstdio>
#include <cstdlib>

namespace {
__attribute__((constructor)) void record_that_dlopen_ran_it() {
    if (const char* loaded = std::getenv("SHEDLOCK_TEST_MODULE_LOADED"))
        if (std::FILE* f = std::fopen(loaded, "w")) std::fclose(f);
}
}  // namespace

extern "C" {
__attribute__((visibility("default"))) extern const char shedlock_provider_module_version[];
const char shedlock_provider_module_version[] = TEST_MODULE_VERSION;
__attribute__((visibility("default"))) extern const char shedlock_provider_module_build[];
const char shedlock_provider_module_build[] = TEST_MODULE_BUILD;

__attribute__((visibility("default"))) void shedlock_register_provider_module(shedlock::provider_registry*) {
    if (const char* marker = std::getenv("SHEDLOCK_TEST_MODULE_MARKER"))
        if (std::FILE* f = std::fopen(marker, "w")) std::fclose(f);
    if (TEST_MODULE_FOREIGN) std::abort();
}
}
