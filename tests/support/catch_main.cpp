// Catch2's main, compiled once for every test program. Every program runs with NoAssertions on,
// whatever its command line: a test case that ends without a single assertion (one that returned
// early, e.g. because a server it needs was not configured) fails instead of passing having
// tested nothing. (Catch2 takes -w only once, so the registration cannot add it to --warn NoTests.)
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

int main(int argc, char* argv[]) {
    Catch::Session session;
    if (const int status = session.applyCommandLine(argc, argv); status != 0) return status;
    auto& config = session.configData();
    config.warnings = static_cast<Catch::WarnAbout::What>(config.warnings | Catch::WarnAbout::NoAssertions);
    return session.run();
}
