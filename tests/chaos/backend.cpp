#include "backend.hpp"

#include "own_postgres_pair.hpp"
#include "own_redis.hpp"
#include "own_redis_cluster.hpp"
#include "own_redis_sentinel.hpp"

#include <shedlock/provider_uri.hpp>

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <thread>

namespace shedlock::chaos {
namespace {

constexpr int client_skew_ms = 3'000;  // > lock_at_most_for: enough to steal a live lock
constexpr int db_skew_ms = 20'000;     // server-clock lanes must shrug off far more than that

/// `provider` names the folder whose server.sh starts the server.
std::string required_env(const std::string& name, const std::string& provider) {
    const char* value = std::getenv(name.c_str());
    if (!value || !*value)
        throw std::runtime_error(name + " is not set: start the server with `eval \"$(providers/" + provider +
                                 "/server.sh start /tmp/somedir)\"`, or run scripts/test.sh or tests/chaos/run_chaos.sh");
    return value;
}

/// Runs `<script> <command> <dir>` from the environment. The port variable is passed on, since
/// `resume` starts the server on $SHEDLOCK_<X>_PORT (or the default port): a suite running on a
/// server with another port must bring it back there, not onto somebody else's port.
std::function<void()> script_action(const std::string& env_prefix, const std::string& provider,
                                    const std::string& port_var, int port, const std::string& command) {
    const std::string script = required_env(env_prefix + "_SCRIPT", provider);
    const std::string dir = required_env(env_prefix + "_DIR", provider);
    const std::string line = port_var + "=" + std::to_string(port) + " '" + script + "' " + command + " '" + dir +
                             "' </dev/null >/dev/null 2>&1";
    return [line] {
        if (std::system(line.c_str()) != 0) throw std::runtime_error("`" + line + "` failed");
    };
}

server_handle script_server(const std::string& name, const std::string& uri_text, const std::string& env_prefix,
                            const std::string& provider, const std::string& port_var) {
    const provider_uri uri = parse_provider_uri(uri_text);
    const int port = uri.port.value_or(0);
    return {name, uri.host, port, script_action(env_prefix, provider, port_var, port, "halt"),
            script_action(env_prefix, provider, port_var, port, "resume")};
}

std::string with_query(const std::string& uri, const std::string& query) {
    return uri + (uri.find('?') == std::string::npos ? "?" : "&") + query;
}

backend_setup sqlite_backend(const std::string& work_dir, const std::string& run_id) {
    const std::string uri = "sqlite://" + work_dir + "/locks.db?table=chaos_locks";
    backend_setup b;
    b.lanes.push_back({"client_time", "chaos-ct-" + run_id, uri, true, false, -1, client_skew_ms});
    b.lanes.push_back({"db_time", "chaos-db-" + run_id, with_query(uri, "use_db_time=true"), true, false, -1,
                       client_skew_ms});
    return b;
}

backend_setup sql_server_backend(const std::string& backend, const std::string& run_id) {
    const bool pg = backend == "postgres";
    const std::string uri_var = pg ? "SHEDLOCK_TEST_POSTGRES_URI" : "SHEDLOCK_TEST_MYSQL_URI";
    const std::string prefix = pg ? "SHEDLOCK_TEST_POSTGRES" : "SHEDLOCK_TEST_MARIADB";
    const std::string server = pg ? "postgres" : "mariadb";
    const std::string base = required_env(uri_var, backend);
    const std::string uri = with_query(base, "table=chaos_locks&connect_timeout=2s&statement_timeout=3s");
    backend_setup b;
    b.servers.push_back(script_server(server, base, prefix, backend, pg ? "SHEDLOCK_POSTGRES_PORT" : "SHEDLOCK_MARIADB_PORT"));
    b.lanes.push_back({"client_time", "chaos-ct-" + run_id, uri, true, false, 0, client_skew_ms});
    b.lanes.push_back({"db_time", "chaos-db-" + run_id, with_query(uri, "use_db_time=true"), false, false, 0, db_skew_ms});
    return b;
}

/// Runs `shedlock locks -p uri` until it succeeds, for at most 30 s: after the server behind it
/// came back, PgBouncer refuses new clients until its next server login, server_login_retry
/// (15 s by default) after the one that failed while the server was down.
void wait_until_serving(const std::string& cli, const std::string& uri) {
    const std::string line = "'" + cli + "' locks -p '" + uri + "' </dev/null >/dev/null 2>&1";
    for (int tries = 0; tries < 150; ++tries) {
        if (std::system(line.c_str()) == 0) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    throw std::runtime_error("PgBouncer did not serve " + uri.substr(uri.find('@') + 1) + " within 30 s of the server's return");
}

/// The PostgreSQL lanes through PgBouncer's transaction pooling (server.sh starts it beside the
/// test server, default settings). The workers' proxy stands between them and PgBouncer
/// (latency, black holes, resets of client connections); a "restart" halts and resumes the
/// PostgreSQL server behind it: PgBouncer stays up, its server connections break, and the new
/// ones lack every prepared statement (named after its text: bound first, then prepared again).
/// The restart ends when PgBouncer serves again (server_login_retry after the server's return).
backend_setup postgres_pgbouncer_backend(const std::string& run_id, const std::string& cli) {
    const std::string direct = required_env("SHEDLOCK_TEST_POSTGRES_URI", "postgres");
    const std::string pooled = required_env("SHEDLOCK_TEST_PGBOUNCER_TRANSACTION_URI", "postgres");
    const provider_uri server = parse_provider_uri(direct), pooler = parse_provider_uri(pooled);
    const int server_port = server.port.value_or(0);
    backend_setup b;
    const std::string uri = with_query(pooled, "table=chaos_locks&connect_timeout=2s&statement_timeout=3s");
    auto resume = script_action("SHEDLOCK_TEST_POSTGRES", "postgres", "SHEDLOCK_POSTGRES_PORT", server_port, "resume");
    b.servers.push_back(
        {"postgres-behind-pgbouncer", pooler.host, pooler.port.value_or(0),
         script_action("SHEDLOCK_TEST_POSTGRES", "postgres", "SHEDLOCK_POSTGRES_PORT", server_port, "halt"),
         [resume, cli, uri] {
             resume();
             wait_until_serving(cli, uri);
         }});
    b.lanes.push_back({"client_time", "chaos-ct-" + run_id, uri, true, false, 0, client_skew_ms});
    b.lanes.push_back({"db_time", "chaos-db-" + run_id, with_query(uri, "use_db_time=true"), false, false, 0, db_skew_ms});
    return b;
}

backend_setup redis_backend(const std::string& work_dir, const std::string& run_id) {
    const std::string base = required_env("SHEDLOCK_TEST_REDIS_URI", "redis");
    backend_setup b;
    b.servers.push_back(script_server("redis", base, "SHEDLOCK_TEST_REDIS", "redis", "SHEDLOCK_REDIS_PORT"));
    auto aof = std::make_shared<own_redis>(work_dir + "/redis-aof");
    b.servers.push_back({"redis-aof", "127.0.0.1", aof->port(), [aof] { aof->crash(); }, [aof] { aof->restart(); }});
    b.owned.push_back(aof);
    const std::string aof_uri = "redis://127.0.0.1:" + std::to_string(aof->port()) + "/0";
    b.lanes.push_back({"volatile", "chaos-vol-" + run_id, with_query(base, "prefix=chaos"), false, true, 0, db_skew_ms});
    b.lanes.push_back({"aof", "chaos-aof-" + run_id, with_query(aof_uri, "prefix=chaos"), false, false, 1, db_skew_ms});
    return b;
}

#ifdef SHEDLOCK_CHAOS_SENTINEL
/// Proxies to `count` data nodes from `first_port` on, made before the topology starts: its nodes
/// announce these ports, so every client (and the topology itself) reaches a node through one.
std::vector<std::unique_ptr<tcp_proxy>> node_proxies(int first_port, int count) {
    std::vector<std::unique_ptr<tcp_proxy>> proxies;
    for (int i = 0; i < count; ++i) proxies.push_back(std::make_unique<tcp_proxy>(first_port + i));
    return proxies;
}

std::vector<int> ports_of(const std::vector<std::unique_ptr<tcp_proxy>>& proxies) {
    std::vector<int> ports;
    for (const auto& p : proxies) ports.push_back(p->port());
    return ports;
}

/// One server per data node, each with its node's proxy: a restart of any is the topology's
/// failover; a partition or reset cuts the workers off that node, whatever its role is then.
template <class Topology>
void add_node_servers(backend_setup& b, const std::shared_ptr<Topology>& topology, const std::string& name,
                      std::vector<std::unique_ptr<tcp_proxy>> proxies, int first_port) {
    for (std::size_t i = 0; i < proxies.size(); ++i)
        b.servers.push_back({name + "-node" + std::to_string(i), "127.0.0.1", first_port + static_cast<int>(i),
                             [topology] { topology->fail_over(); }, [topology] { topology->rejoin(); },
                             std::move(proxies[i])});
    b.owned.push_back(topology);
}

/// A Redis primary, replica and three sentinels of the run's own (ports 64210/64211 and
/// 26780-26782: above the ephemeral range, apart from the Sentinel tests' own), two lanes on one
/// redis-sentinel:// URI. Its "restart" is a failover (the primary killed, the sentinels promote
/// the replica, the killed node rejoins as a replica); the nodes announce their proxies' ports.
/// Without wait_replicas an acquisition the replica had not received is lost in a failover: the
/// lane's overlaps across one are excused (volatile_store); with wait_replicas=1 an acquisition
/// counts only once the replica has it, so that lane must have none.
backend_setup redis_sentinel_backend(const std::string& work_dir, const std::string& run_id) {
    constexpr int base = 400;
    auto proxies = node_proxies(63810 + base, 2);
    auto topology = std::make_shared<own_redis_sentinel>(SHEDLOCK_CHAOS_SENTINEL, work_dir + "/redis-sentinel", base,
                                                         ports_of(proxies));
    backend_setup b;
    add_node_servers(b, topology, "redis-sentinel", std::move(proxies), topology->node_port(0));
    const std::string uri = topology->uri("prefix=chaos");
    b.lanes.push_back({"no_wait", "chaos-sn-" + run_id, uri, false, true, 0, db_skew_ms, true, true});
    b.lanes.push_back({"wait_replicas", "chaos-sw-" + run_id, with_query(uri, "wait_replicas=1"), false, false, 0,
                       db_skew_ms, true, true});
    return b;
}

/// A Redis Cluster of the run's own (3 primaries, 3 replicas on 31920-31925, buses 2000 below:
/// both below the ephemeral range, where a client connection can hold a port, and apart from the
/// Cluster tests' 63820), two lanes on one redis-cluster:// URI. Its "restart" is a failover of
/// the primary serving one lane's lock key (the lanes' in turn); the nodes announce their
/// proxies' ports. As with Sentinel: without wait_replicas overlaps across a failover are excused
/// (an acquisition the replica had not received is lost); with wait_replicas=1 there must be none.
backend_setup redis_cluster_backend(const std::string& work_dir, const std::string& run_id) {
    constexpr int first_port = 31920;
    const std::string no_wait = "chaos-cn-" + run_id, wait = "chaos-cw-" + run_id;
    auto proxies = node_proxies(first_port, 6);
    auto cluster = std::make_shared<own_redis_cluster>(
        SHEDLOCK_CHAOS_CLUSTER, work_dir + "/redis-cluster", first_port,
        std::vector<std::string>{"chaos:{" + no_wait + "}", "chaos:{" + wait + "}"}, ports_of(proxies));
    backend_setup b;
    add_node_servers(b, cluster, "redis-cluster", std::move(proxies), first_port);
    const std::string uri = cluster->uri("prefix=chaos");
    b.lanes.push_back({"no_wait", no_wait, uri, false, true, 0, db_skew_ms, true, true});
    b.lanes.push_back({"wait_replicas", wait, with_query(uri, "wait_replicas=1"), false, false, 0, db_skew_ms, true, true});
    return b;
}
#endif

/// A primary and a streaming replica of the run's own (free loopback ports, as own_redis: fixed
/// ones lie in the ephemeral range, where a client connection may hold one as its local port), one lane whose workers name both in one multi-host URI. Its "restart" is
/// a failover. Asynchronous replication may lose acquisitions in a failover: the lane's
/// overlaps across one are excused (counted, volatile_store); synchronous (remote_apply) must
/// have none. Fencing tokens must never repeat in either mode (the timeline epoch).
backend_setup postgres_failover_backend(const std::string& work_dir, const std::string& run_id, bool synchronous) {
#ifdef SHEDLOCK_CHAOS_DELAY_PROXY
    const std::string relay = SHEDLOCK_CHAOS_DELAY_PROXY;
#else
    const std::string relay;  // a build without bench/: the WAL streams directly
#endif
    // Replication lag (the WAL relayed 30 ms late each way) widens the window in which an
    // asynchronous failover loses acquisitions; the synchronous lane must lose none even so.
    auto pair = std::make_shared<own_postgres_pair>(SHEDLOCK_CHAOS_POSTGRES_PAIR, work_dir + "/postgres-pair", synchronous,
                                                    std::pair{free_loopback_port(), free_loopback_port()}, relay,
                                                    std::pair{free_loopback_port(), free_loopback_port()},
                                                    std::chrono::milliseconds(30));
    backend_setup b;
    b.servers.push_back({"postgres-pair", "127.0.0.1", pair->port_a(), [pair] { pair->fail_over(); },
                         [pair] { pair->rejoin(); }});
    b.owned.push_back(pair);
    const std::string uri = pair->uri("table=chaos_locks&connect_timeout=2s&statement_timeout=3s&use_db_time=true");
    b.lanes.push_back({synchronous ? "failover_sync" : "failover_async", "chaos-fo-" + run_id, uri, false, !synchronous, 0,
                       db_skew_ms, !synchronous});
    return b;
}

}  // namespace

backend_setup make_backend(const std::string& backend, const std::string& work_dir, const std::string& run_id,
                           const std::string& cli) {
    if (backend == "sqlite") return sqlite_backend(work_dir, run_id);
    if (backend == "postgres" || backend == "mysql") return sql_server_backend(backend, run_id);
    if (backend == "redis") return redis_backend(work_dir, run_id);
    if (backend == "postgres_pgbouncer") return postgres_pgbouncer_backend(run_id, cli);
#ifdef SHEDLOCK_CHAOS_SENTINEL
    if (backend == "redis_sentinel") return redis_sentinel_backend(work_dir, run_id);
    if (backend == "redis_cluster") return redis_cluster_backend(work_dir, run_id);
#endif
#ifdef SHEDLOCK_CHAOS_POSTGRES_PAIR
    if (backend == "postgres_failover" || backend == "postgres_failover_sync")
        return postgres_failover_backend(work_dir, run_id, backend == "postgres_failover_sync");
#endif
    throw std::runtime_error("unknown backend " + backend);
}

std::string redirect_uri(const std::string& uri, const server_handle& server, int new_port) {
    const std::string from = server.host + ":" + std::to_string(server.port);
    const auto at = uri.find(from);
    if (at == std::string::npos) throw std::runtime_error("cannot find " + from + " in a provider URI");
    return uri.substr(0, at) + "127.0.0.1:" + std::to_string(new_port) + uri.substr(at + from.size());
}

}  // namespace shedlock::chaos
