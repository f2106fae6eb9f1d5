// A backend that offers only a lock provider (as etcd or ZooKeeper will): its session has no run
// store and no idempotency store, and asking for them names the alternative.
#include <shedlock/backend_session.hpp>
#include <shedlock/error.hpp>
#include <shedlock/provider_registry.hpp>
#include <shedlock/providers/memory_lock_provider.hpp>

#include <catch2/catch.hpp>

using namespace shedlock;
using Catch::Matchers::Contains;
using std::chrono::milliseconds;

namespace {

/// "locksonly:" — a lock provider and its inspector, nothing else.
void register_locks_only(provider_registry& registry, int& sessions) {
    backend_registration backend{"locksonly", {"locksonly"}, {}, {}};
    backend.open_session = [&sessions](const provider_uri&, const open_request&) {
        ++sessions;
        session_parts parts;
        parts.locks = [] { return std::make_unique<providers::memory_lock_provider>(); };
        return parts;
    };
    registry.add(std::move(backend));
}

}  // namespace

TEST_CASE("session: a backend without a run store refuses runs() naming the alternative", "[session]") {
    provider_registry registry;
    int sessions = 0;
    register_locks_only(registry, sessions);
    const auto session = open_backend("locksonly:", {}, registry);
    CHECK(sessions == 1);
    CHECK(session->backend_name() == "locksonly");
    CHECK_FALSE(session->has_runs());
    CHECK_FALSE(session->has_claims());
    CHECK(session->schema().empty());
    CHECK_THROWS_AS(session->runs(), configuration_error);
    CHECK_THROWS_WITH(session->runs(), Contains("locksonly keeps no run records") &&
                                           Contains("give a run-store URI of another backend"));
    CHECK_THROWS_WITH(session->claims(), Contains("keeps no claims") && Contains("use another backend for them"));
    CHECK_THROWS_WITH(open_run_store("locksonly:", {}, registry), Contains("keeps no run records"));
    // The lock provider and its inspector are there, one object for the whole session.
    CHECK(session->locks().try_lock({"session-locks-only", milliseconds{1000}}));
    CHECK(session->inspector().list_locks().size() == 1);
    CHECK(&session->locks() == session->share_locks().get());
}

TEST_CASE("session: inspect() of a provider without an inspector says so", "[session]") {
    class bare final : public lock_provider {
    public:
        bool supports_fencing() const override { return false; }

    private:
        std::optional<lease> do_try_lock(const lock_configuration&, const std::string&) override { return {}; }
        void do_unlock(const lease&) override {}
        std::optional<lease> do_extend(const lease&, milliseconds, milliseconds) override { return {}; }
    } provider;
    CHECK(provider.inspector() == nullptr);
    CHECK_THROWS_AS(inspect(provider), unsupported_operation_error);
    CHECK_THROWS_WITH(inspect(provider), Contains("no lock_inspector"));
}
