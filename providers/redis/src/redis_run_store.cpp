#include "redis_errors.hpp"
#include "redis_keys.hpp"
#include "redis_lock_listing.hpp"
#include "redis_pool.hpp"
#include "redis_session.hpp"
#include "redis_run_codec.hpp"

#include <shedlock/error.hpp>
#include <shedlock/providers/redis_run_store.hpp>

#include <algorithm>
#include <atomic>
#include <optional>

namespace shedlock::providers {
namespace {

/// `<prefix>:runs:` or `<prefix>:runs:<env>:`: never `<prefix>[:<env>]:{...}`, the lock keys'
/// shape, so list_locks (which SCANs `<prefix>[:<env>]:*`) skips run keys.
std::string runs_base(const redis_options& options) {
    const std::string env = detail::effective_env(options);
    return detail::effective_prefix(options) + ":runs:" + (env.empty() ? "" : env + ":");
}

void check_reply(const detail::reply_ptr& reply, const detail::redis_connection& connection, const char* what) {
    if (reply->type == REDIS_REPLY_ERROR) throw detail::reply_error({reply->str, reply->len}, what, connection.where());
}

class redis_run_store final : public run_store {
public:
    redis_run_store(const redis_run_options& options, std::shared_ptr<detail::redis_pool> pool)
        : options_(options), base_(runs_base(options.server)), tasks_key_(base_ + "tasks"), pool_(std::move(pool)) {}

    void append(const run_record& record) override;
    std::vector<run_record> last_runs(const std::string& task, std::size_t n) override;
    std::vector<run_record> last_runs_of_instance(const std::string& task, const std::string& instance,
                                                  std::size_t n) override;
    std::vector<std::string> tasks() override;
    const run_retention& retention() const noexcept override { return options_.retention; }

private:
    std::string stream_key(const std::string& task) const { return base_ + "{" + task + "}"; }
    void prune_age(detail::redis_connection& connection, const std::string& key);
    detail::reply_ptr newest_entries(detail::redis_connection& connection, const std::string& key,
                                     const std::string& before, std::size_t count);

    const redis_run_options options_;
    const std::string base_;
    const std::string tasks_key_;
    std::shared_ptr<detail::redis_pool> pool_;  ///< the session's (or its own)
    std::atomic<std::size_t> appends_{0};
};

void redis_run_store::append(const run_record& record) {
    const std::string key = stream_key(record.task);
    const std::string max_len = std::to_string(options_.retention.max_per_task);
    const auto fields = detail::encode_run_fields(record);
    std::vector<std::string_view> xadd{"XADD", key, "MAXLEN", max_len, "*"};
    xadd.insert(xadd.end(), fields.begin(), fields.end());
    // Once more on a new connection when the pooled one had closed while it idled (nothing sent:
    // retry_advice::safe); one lost mid-write is in doubt and reported ("may have been applied").
    pool_->run_retrying_safe([&](detail::redis_connection& connection) {
        const auto replies = connection.pipeline({xadd, {"SADD", tasks_key_, record.task}}, "XADD (run record)");
        for (const auto& reply : replies) check_reply(reply, connection, "XADD (run record)");
        return replies.size();
    });
    if (options_.retention.max_age && options_.prune_every > 0 && ++appends_ % options_.prune_every == 0)
        pool_->run([&](detail::redis_connection& connection) {
            prune_age(connection, key);
            return 0;
        });
}

// Stream IDs carry the server's time at append, so the cut-off is taken on the server clock.
void redis_run_store::prune_age(detail::redis_connection& connection, const std::string& key) {
    const auto cutoff = detail::redis_server_time(connection) - *options_.retention.max_age;
    const std::string min_id = std::to_string(std::max<std::int64_t>(cutoff.time_since_epoch().count(), 0));
    connection.checked({"XTRIM", key, "MINID", min_id}, "XTRIM MINID (run-record max_age)");
}

detail::reply_ptr redis_run_store::newest_entries(detail::redis_connection& connection, const std::string& key,
                                                  const std::string& before, std::size_t count) {
    auto reply = connection.checked({"XREVRANGE", key, before, "-", "COUNT", std::to_string(count)},
                                    "XREVRANGE (run records)");
    if (reply->type != REDIS_REPLY_ARRAY)
        throw storage_error(storage_category::invalid_data,
                            connection.where() + " answered XREVRANGE on \"" + key + "\" with a non-array reply");
    return reply;
}

std::vector<run_record> redis_run_store::last_runs(const std::string& task, std::size_t n) {
    if (n == 0) return {};
    const std::string key = stream_key(task);
    auto connection = pool_->borrow();
    const auto reply = newest_entries(*connection, key, "+", n);
    std::vector<run_record> records;
    for (std::size_t i = 0; i < reply->elements; ++i)
        records.push_back(detail::decode_run_entry(*reply->element[i], task, key));
    return records;
}

// A stream has no index by field: the entries are read newest first in pages (XREVRANGE is
// @read, so a read-only ACL user can do it, which a script could not) and filtered here. The
// stream is capped at max_per_task entries, which bounds the pages.
std::vector<run_record> redis_run_store::last_runs_of_instance(const std::string& task, const std::string& instance,
                                                               std::size_t n) {
    constexpr std::size_t page = 256;
    const std::string key = stream_key(task);
    auto connection = pool_->borrow();
    std::vector<run_record> records;
    std::optional<std::string> before = "+";
    while (records.size() < n && before) {
        const auto reply = newest_entries(*connection, key, *before, page);
        for (std::size_t i = 0; i < reply->elements && records.size() < n; ++i) {
            auto record = detail::decode_run_entry(*reply->element[i], task, key);
            if (record.instance == instance) records.push_back(std::move(record));
        }
        if (reply->elements < page) break;
        const auto& last_id = *reply->element[reply->elements - 1]->element[0];  // shape checked by decoding
        if (last_id.type != REDIS_REPLY_STRING) break;
        before = detail::previous_stream_id({last_id.str, last_id.len});
    }
    return records;
}

std::vector<std::string> redis_run_store::tasks() {
    auto connection = pool_->borrow();
    const auto members = connection->checked({"SMEMBERS", tasks_key_}, "SMEMBERS (run-record tasks)");
    std::vector<std::string> names, keys;
    for (std::size_t i = 0; i < members->elements; ++i)
        names.emplace_back(members->element[i]->str, members->element[i]->len);
    std::vector<std::vector<std::string_view>> commands;
    keys.reserve(names.size());  // the views below point into it
    for (const auto& name : names) commands.push_back({"XLEN", keys.emplace_back(stream_key(name))});
    const auto lengths = commands.empty() ? std::vector<detail::reply_ptr>{}
                                          : connection->pipeline(commands, "XLEN (run-record tasks)");
    std::vector<std::string> with_records;
    for (std::size_t i = 0; i < names.size(); ++i) {
        check_reply(lengths[i], *connection, "XLEN (run-record tasks)");
        if (lengths[i]->integer > 0) with_records.push_back(names[i]);
    }
    std::sort(with_records.begin(), with_records.end());
    return with_records;
}

}  // namespace

redis_run_options redis_run_options::from_uri(const provider_uri& uri) {
    redis_run_options o;
    o.server = redis_options::from_uri(uri);
    return o;
}

std::unique_ptr<run_store> make_redis_run_store(const redis_run_options& options) {
    detail::validate_redis_options(options.server);
    return std::make_unique<redis_run_store>(options, std::make_shared<detail::redis_pool>(options.server));
}

std::unique_ptr<run_store> detail::make_redis_run_store(const redis_run_options& options, std::shared_ptr<redis_pool> pool) {
    return std::make_unique<redis_run_store>(options, std::move(pool));
}

}  // namespace shedlock::providers
