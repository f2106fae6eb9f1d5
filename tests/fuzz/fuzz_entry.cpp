// libFuzzer entry of one fuzz target, chosen at compile time by SHEDLOCK_FUZZ_TARGET (the name a
// *_check.cpp registered). Every target is this file plus its check.
#include "fuzz_check.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <typeinfo>

namespace {

shedlock::fuzz::check_function check = nullptr;

[[noreturn]] void fail(const char* what) {
    std::fprintf(stderr, "fuzz target %s: %s\n", SHEDLOCK_FUZZ_TARGET, what);
    std::abort();  // libFuzzer saves the input as a crash
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    const auto& checks = shedlock::fuzz::registered_checks();
    const auto it = checks.find(SHEDLOCK_FUZZ_TARGET);
    if (it == checks.end()) fail("no check registered under this name");
    if (it->second.setup) it->second.setup();
    check = it->second.check;
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        check(std::string_view(reinterpret_cast<const char*>(data), size));
    } catch (const std::exception& e) {
        // Printed here, not by std::terminate, so the report names the type and the message.
        std::fprintf(stderr, "escaped %s: %s\n", typeid(e).name(), e.what());
        fail("an exception escaped the check");
    } catch (...) {
        fail("a non-std exception escaped the check");
    }
    return 0;
}
