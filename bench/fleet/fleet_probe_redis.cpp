// Redis's side of a firing: INFO (process id, commandstats, used_memory) over the probe's own
// connection, and the redis-server process's CPU from /proc. Others' commands on a shared server
// are counted too: the bench says so next to the figure.
#include "fleet_probes.hpp"
#include "fleet_proc.hpp"
#include "../redis_raw.hpp"
#include "redis_keys.hpp"

#include <shedlock/provider_uri.hpp>

#include <sstream>
#include <stdexcept>

namespace shedlock::bench::fleet {

namespace {

class redis_probe : public server_probe {
public:
    explicit redis_probe(const std::string& uri) {
        const auto options = providers::redis_options::from_uri(parse_provider_uri(uri));
        port_ = options.port;
        connection_ = redis_connect(options);
        pid_ = static_cast<int>(std::stol(field("process_id")));
    }

    live_figures live(const std::vector<int>& workers) override {
        live_figures f;
        f.server_cpu_ns[pid_] = process_cpu_ns(pid_);
        f.client_connections = f.server_connections = static_cast<int>(client_ports(workers, port_).size());
        return f;
    }

    counter_figures counters() override {
        counter_figures c;
        std::istringstream lines(info());
        std::string line;
        while (std::getline(lines, line)) {
            const auto calls = line.find("calls=");
            if (line.rfind("cmdstat_", 0) == 0 && calls != std::string::npos) c.statements += std::stod(line.substr(calls + 6));
            if (line.rfind("used_memory:", 0) == 0) c.memory_bytes = std::stod(line.substr(12));
        }
        return c;
    }

    counter_figures settled(const counter_figures&, double, const live_figures&) override { return counters(); }

    std::string version() override { return "Redis " + field("redis_version"); }

private:
    std::string info() {
        auto* reply = redis_call(connection_.get(), {"INFO", "all"});
        std::string text(reply->str, reply->len);
        freeReplyObject(reply);
        return text;
    }

    std::string field(const std::string& name) {
        std::istringstream lines(info());
        std::string line;
        while (std::getline(lines, line))
            if (line.rfind(name + ":", 0) == 0) {
                std::string value = line.substr(name.size() + 1);
                while (!value.empty() && (value.back() == '\r' || value.back() == '\n')) value.pop_back();
                return value;
            }
        throw std::runtime_error("probe: INFO has no " + name);
    }

    std::shared_ptr<redisContext> connection_;
    int port_ = 0, pid_ = -1;
};

}  // namespace

std::unique_ptr<server_probe> make_redis_probe(const std::string& uri) { return std::make_unique<redis_probe>(uri); }

double redis_memory_per_lock(const std::string& uri, const std::string& prefix, const std::string& name) {
    auto options = providers::redis_options::from_uri(parse_provider_uri(uri));
    options.prefix = prefix;
    const providers::detail::redis_keys keys(options);
    auto connection = redis_connect(options);
    double bytes = 0;
    for (const auto& key : {keys.lock_key(name), keys.fence_key(name)}) {
        auto* reply = redis_call(connection.get(), {"MEMORY", "USAGE", key});
        bytes += reply->type == REDIS_REPLY_INTEGER ? static_cast<double>(reply->integer) : 0;
        freeReplyObject(reply);
    }
    return bytes;
}

}  // namespace shedlock::bench::fleet
