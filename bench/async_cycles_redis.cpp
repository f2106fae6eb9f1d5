// The raw Redis floor of bench/async_cycles: hiredis's asynchronous API on an Asio adapter of
// this bench's own (readiness waits on the socket and nothing else: no timeouts, no retries,
// no idle checks), running the provider's acquire and unlock scripts by EVALSHA.
#include "async_cycles_raw.hpp"
#include "redis_lock_calls.hpp"
#include "redis_raw.hpp"

#include <boost/asio/posix/stream_descriptor.hpp>

#include <hiredis/async.h>

#include <memory>
#include <stdexcept>

namespace shedlock::bench {
namespace {

namespace net = boost::asio;
using namespace providers::detail;

/// One redisAsyncContext whose hooks become async_wait()s on its socket.
class raw_connection : public std::enable_shared_from_this<raw_connection> {
public:
    raw_connection(net::io_context& io, const providers::redis_options& o)
        : context_(redisAsyncConnect(o.host.c_str(), o.port)), socket_(io) {
        if (!context_ || context_->err) throw std::runtime_error("raw Redis floor: cannot connect to " + o.host);
    }
    ~raw_connection() { close(); }

    /// Installs the hooks (needs the shared_ptr: the waits hold it).
    void attach() {
        socket_.assign(context_->c.fd);
        context_->ev.data = this;
        context_->ev.addRead = [](void* self) { static_cast<raw_connection*>(self)->want(read_, true); };
        context_->ev.delRead = [](void* self) { static_cast<raw_connection*>(self)->want(read_, false); };
        context_->ev.addWrite = [](void* self) { static_cast<raw_connection*>(self)->want(write_, true); };
        context_->ev.delWrite = [](void* self) { static_cast<raw_connection*>(self)->want(write_, false); };
        context_->ev.cleanup = nullptr;
    }

    void send(redisCallbackFn* fn, void* data, std::vector<const char*>& argv, const std::vector<size_t>& lengths) {
        if (redisAsyncCommandArgv(context_, fn, data, static_cast<int>(argv.size()), argv.data(), lengths.data()) != REDIS_OK)
            throw std::runtime_error("raw Redis floor: command not queued");
    }

    /// The descriptor goes back to hiredis first, which closes it.
    void close() {
        if (!context_) return;
        boost::system::error_code ignored;
        socket_.cancel(ignored);
        socket_.release();
        redisAsyncFree(std::exchange(context_, nullptr));
    }

private:
    enum direction { read_ = 0, write_ = 1 };

    void want(direction d, bool on) {
        wanted_[d] = on;
        if (on && !waiting_[d]) wait(d);
    }

    void wait(direction d) {
        waiting_[d] = true;
        socket_.async_wait(d == read_ ? net::posix::stream_descriptor::wait_read : net::posix::stream_descriptor::wait_write,
                           [self = shared_from_this(), d](boost::system::error_code ec) {
                               self->waiting_[d] = false;
                               if (ec || !self->context_ || !self->wanted_[d]) return;
                               if (d == read_) redisAsyncHandleRead(self->context_);
                               else redisAsyncHandleWrite(self->context_);
                               if (self->context_ && self->wanted_[d] && !self->waiting_[d]) self->wait(d);
                           });
    }

    redisAsyncContext* context_;
    net::posix::stream_descriptor socket_;
    bool wanted_[2] = {false, false}, waiting_[2] = {false, false};
};

/// One loop of cycles on one name: its two commands' arguments built once from the provider's
/// own calls; only the owner (argument 0 of both scripts) changes per cycle.
struct raw_loop;

/// The floor: connections, scripts, loops; state of the slice running now.
struct raw_floor {
    std::vector<std::shared_ptr<raw_connection>> connections;
    std::size_t next = 0;
    std::vector<std::unique_ptr<raw_loop>> loops;
    bench_clock::time_point deadline;
    long cycles = 0, owners = 0;
    int active = 0;
    std::string failure;

    ~raw_floor() {
        for (auto& c : connections) c->close();
    }
    raw_connection& connection() { return *connections[next++ % connections.size()]; }
};

struct raw_loop {
    raw_floor* floor = nullptr;
    std::vector<std::string> acquire, unlock;  // EVALSHA sha numkeys keys... args...
    std::size_t owner_at_acquire = 0, owner_at_unlock = 0;
    std::vector<const char*> acquire_argv{}, unlock_argv{};
    std::vector<size_t> acquire_lengths{}, unlock_lengths{};

    static void views(const std::vector<std::string>& command, std::vector<const char*>& argv,
                      std::vector<size_t>& lengths) {
        argv.clear();
        lengths.clear();
        for (const auto& a : command) argv.push_back(a.data()), lengths.push_back(a.size());
    }

    void start() {
        const std::string owner = counter_owner(++floor->owners);
        acquire[owner_at_acquire] = owner;
        unlock[owner_at_unlock] = owner;
        if (acquire_argv.empty()) views(acquire, acquire_argv, acquire_lengths), views(unlock, unlock_argv, unlock_lengths);
        acquire_argv[owner_at_acquire] = acquire[owner_at_acquire].data();  // same length, maybe a new buffer
        unlock_argv[owner_at_unlock] = unlock[owner_at_unlock].data();
        floor->connection().send([](redisAsyncContext*, void* r, void* self) { static_cast<raw_loop*>(self)->acquired(r); },
                                 this, acquire_argv, acquire_lengths);
    }

    void acquired(void* r) {
        const auto* reply = static_cast<const redisReply*>(r);
        if (!reply || reply->type != REDIS_REPLY_INTEGER || reply->integer < 0) return fail("acquire");
        floor->connection().send([](redisAsyncContext*, void* r, void* self) { static_cast<raw_loop*>(self)->released(r); },
                                 this, unlock_argv, unlock_lengths);
    }

    void released(void* r) {
        const auto* reply = static_cast<const redisReply*>(r);
        if (!reply || reply->type != REDIS_REPLY_INTEGER || reply->integer != 1) return fail("unlock");
        ++floor->cycles;
        if (bench_clock::now() < floor->deadline && floor->failure.empty()) start();
        else --floor->active;
    }

    void fail(const char* what) {
        if (floor->failure.empty()) floor->failure = std::string("raw Redis floor: unexpected reply to ") + what;
        --floor->active;
    }
};

std::vector<std::string> evalsha(const std::string& sha, const lock_script_call& call) {
    std::vector<std::string> out{"EVALSHA", sha, std::to_string(call.keys.size())};
    out.insert(out.end(), call.keys.begin(), call.keys.end());
    out.insert(out.end(), call.args.begin(), call.args.end());
    return out;
}

void handshake(raw_floor& floor, net::io_context& io, const providers::redis_options& o) {
    std::vector<std::vector<std::string>> steps;
    if (o.password) steps.push_back(o.user.empty() ? std::vector<std::string>{"AUTH", *o.password}
                                                   : std::vector<std::string>{"AUTH", o.user, *o.password});
    steps.push_back({"SELECT", std::to_string(o.db)});
    for (auto& c : floor.connections)
        for (auto& step : steps) {
            std::vector<const char*> argv;
            std::vector<size_t> lengths;
            for (const auto& a : step) argv.push_back(a.data()), lengths.push_back(a.size());
            ++floor.active;
            c->send([](redisAsyncContext*, void* r, void* f) {
                auto* fl = static_cast<raw_floor*>(f);
                const auto* reply = static_cast<const redisReply*>(r);
                if (!reply || reply->type == REDIS_REPLY_ERROR) fl->failure = "raw Redis floor: AUTH/SELECT failed";
                --fl->active;
            }, &floor, argv, lengths);
        }
    run_until_idle(io, &floor.active);
    if (!floor.failure.empty()) throw std::runtime_error(floor.failure);
}

}  // namespace

cycle_runner raw_redis_side(const providers::redis_options& options, net::io_context& io, std::vector<std::string> names,
                            std::chrono::milliseconds at_most) {
    auto floor = std::make_shared<raw_floor>();
    for (std::size_t i = 0; i < options.pool_size; ++i) {
        floor->connections.push_back(std::make_shared<raw_connection>(io, options));
        floor->connections.back()->attach();
    }
    handshake(*floor, io, options);
    auto loader = redis_connect(options);  // SCRIPT LOAD once, as the driver does on first use
    const std::string acquire_sha = redis_load(loader.get(), redis_script::acquire),
                      unlock_sha = redis_load(loader.get(), redis_script::unlock);
    const redis_keys keys(options);
    for (const auto& name : names) {
        const lock_configuration config(name, at_most);
        lease held;
        held.name = name;
        held.owner = "owner";
        auto loop = std::make_unique<raw_loop>();
        loop->floor = floor.get();
        loop->acquire = evalsha(acquire_sha, acquire_call(keys, options.fencing, config, "owner"));
        loop->unlock = evalsha(unlock_sha, unlock_call(keys, held, std::chrono::milliseconds{0}, false));
        // The owner is the first script argument of both (after EVALSHA sha numkeys keys...).
        loop->owner_at_acquire = 3 + (options.fencing ? 2 : 1);
        loop->owner_at_unlock = 4;
        if (loop->acquire[loop->owner_at_acquire] != "owner" || loop->unlock[loop->owner_at_unlock] != "owner")
            throw std::logic_error("raw Redis floor: the scripts' arguments changed; update async_cycles_redis.cpp");
        floor->loops.push_back(std::move(loop));
    }
    return [floor, &io](bench_clock::time_point deadline) {
        floor->deadline = deadline;
        floor->cycles = 0;
        floor->active = static_cast<int>(floor->loops.size());
        for (auto& loop : floor->loops) loop->start();
        run_until_idle(io, &floor->active);
        if (!floor->failure.empty()) throw std::runtime_error(floor->failure);
        return floor->cycles;
    };
}

}  // namespace shedlock::bench
