// raw_run URI NAME -- COMMAND...: the floor `shedlock run` is measured against. It does the same
// work by hand, the way a user would write it: connect, take the lock, fork + exec the command,
// wait for it (blocking waitpid), release, exit with the command's status (75 when the lock was
// held elsewhere).
#include "raw_backend.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <stdexcept>
#include <string>

namespace shedlock::bench {

uri_parts split_uri(const std::string& uri, unsigned default_port) {
    uri_parts u;
    std::string rest = uri.substr(uri.find("://") + 3);
    if (const auto at = rest.rfind('@'); at != std::string::npos) {
        const std::string credentials = rest.substr(0, at);
        rest = rest.substr(at + 1);
        const auto colon = credentials.find(':');
        u.user = credentials.substr(0, colon);
        if (colon != std::string::npos) u.password = credentials.substr(colon + 1);
    }
    const auto slash = rest.find('/');
    std::string host_port = rest.substr(0, slash);
    if (slash != std::string::npos) u.path = rest.substr(slash + 1, rest.find('?', slash) - slash - 1);
    const auto colon = host_port.rfind(':');
    u.port = colon == std::string::npos ? default_port : static_cast<unsigned>(std::stoul(host_port.substr(colon + 1)));
    u.host = host_port.substr(0, colon);
    return u;
}

std::unique_ptr<raw_backend> open_raw_backend(const std::string& uri) {
    const std::string scheme = uri.substr(0, uri.find(':'));
#ifdef RAW_SQLITE
    if (scheme == "sqlite") return open_raw_sqlite(uri.substr(uri.find(':') + 1));
#endif
#ifdef RAW_POSTGRES
    if (scheme == "postgresql" || scheme == "postgres") return open_raw_postgres(uri);
#endif
#ifdef RAW_MYSQL
    if (scheme == "mysql" || scheme == "mariadb") return open_raw_mysql(uri);
#endif
#ifdef RAW_REDIS
    if (scheme == "redis") return open_raw_redis(uri);
#endif
    throw std::runtime_error("raw_run: no client library for \"" + scheme + "\" in this build");
}

}  // namespace shedlock::bench

int main(int argc, char** argv) {
    if (argc < 5 || std::string(argv[3]) != "--") {
        std::fprintf(stderr, "usage: raw_run URI NAME -- COMMAND...\n");
        return 64;
    }
    try {
        auto backend = shedlock::bench::open_raw_backend(argv[1]);
        const std::string owner = "raw_run:" + std::to_string(::getpid());
        if (!backend->acquire(argv[2], owner, 60'000)) return 75;
        const pid_t pid = ::fork();
        if (pid == 0) {
            ::execvp(argv[4], argv + 4);
            ::_exit(127);
        }
        int status = 0;
        ::waitpid(pid, &status, 0);
        backend->release(argv[2], owner);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "raw_run: %s\n", e.what());
        return 69;
    }
}
