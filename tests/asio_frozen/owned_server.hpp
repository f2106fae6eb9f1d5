#pragma once
// A database server of the test's own, started by the provider's providers/<name>/server.sh on
// free loopback ports in a directory of its own (never the shared test servers), so that the
// test may freeze it (SIGSTOP) without disturbing any other test.

#include <sys/types.h>

#include <map>
#include <string>

namespace shedlock::test {

/// A free TCP port on 127.0.0.1 (bound and released: use it at once).
int free_loopback_port();

class owned_server {
public:
    /// Runs `providers/<provider>/server.sh start DIR` with its port variable(s) set to free
    /// ports and keeps the `export NAME='value'` lines it prints. Throws std::runtime_error (with
    /// the script's output) when it fails.
    explicit owned_server(const std::string& provider);
    /// Thaws the server if frozen, then `server.sh stop DIR`; removes DIR.
    ~owned_server();
    owned_server(const owned_server&) = delete;
    owned_server& operator=(const owned_server&) = delete;

    /// A value the script exported (SHEDLOCK_TEST_REDIS_URI ...); throws naming it when absent.
    const std::string& env(const std::string& name) const;
    /// SIGSTOP to the server and every process it forked (PostgreSQL's backends): it stops
    /// answering, while the kernel still accepts connections and acknowledges TCP. Returns once
    /// every thread of those processes is stopped (throws when one is not within 10 s).
    void freeze();
    /// SIGCONT to the same processes.
    void thaw();

private:
    std::string provider_;
    std::string dir_;
    std::map<std::string, std::string> env_;
    pid_t pid_ = -1;
    bool frozen_ = false;
};

}  // namespace shedlock::test
