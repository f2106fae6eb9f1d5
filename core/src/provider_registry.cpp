#include <shedlock/error.hpp>
#include <shedlock/provider_registry.hpp>

#include <algorithm>

namespace shedlock {
namespace {

bool has_scheme(const backend_registration& backend, const std::string& scheme) {
    return std::find(backend.schemes.begin(), backend.schemes.end(), scheme) != backend.schemes.end();
}

/// "memory:" for path-style schemes, "postgresql://" for server ones (as users write them).
std::string shown_scheme(const std::string& scheme) {
    return scheme == "memory" || scheme == "sqlite" ? scheme + ":" : scheme + "://";
}

}  // namespace

provider_registry& provider_registry::global() {
    static provider_registry registry;
    return registry;
}

void provider_registry::add(backend_registration backend) {
    const std::lock_guard lock(mutex_);
    for (const auto& known : backends_) {
        if (known->name == backend.name) return;
        for (const auto& scheme : backend.schemes)
            if (has_scheme(*known, scheme))
                throw configuration_error("provider \"" + backend.name + "\" registers scheme \"" + scheme +
                                          "\", which provider \"" + known->name + "\" already has");
    }
    backends_.push_back(std::make_unique<backend_registration>(std::move(backend)));
}

const backend_registration& provider_registry::find(const provider_uri& uri) const {
    {
        const std::lock_guard lock(mutex_);
        for (const auto& backend : backends_)
            if (has_scheme(*backend, uri.scheme)) return *backend;
    }
    throw configuration_error("provider URI \"" + uri.redacted() + "\": scheme \"" + uri.scheme +
                              "\" is not supported by this build; use one of: " + supported_schemes());
}

std::string provider_registry::supported_schemes() const {
    const std::lock_guard lock(mutex_);
    std::string out;
    for (const auto& backend : backends_)
        for (const auto& scheme : backend->schemes) out += (out.empty() ? "" : ", ") + shown_scheme(scheme);
    return out.empty() ? "none (no provider is registered; call shedlock::register_all_providers())" : out;
}

std::unique_ptr<lock_provider> open_lock_provider(const std::string& text, const open_request& request,
                                                  const provider_registry& registry) {
    const provider_uri uri = parse_provider_uri(text);
    const auto& backend = registry.find(uri);
    if (!backend.open_locks)
        throw configuration_error("provider URI \"" + uri.redacted() + "\": " + backend.name + " has no lock provider");
    return backend.open_locks(uri, request);
}

std::unique_ptr<run_store> open_run_store(const std::string& text, const open_request& request,
                                          const provider_registry& registry) {
    const provider_uri uri = parse_provider_uri(text);
    const auto& backend = registry.find(uri);
    if (!backend.open_runs)
        throw configuration_error("run records for \"" + uri.redacted() + "\": " + backend.name +
                                  " keeps no run records in this build; keep them in another store");
    return backend.open_runs(uri, request);
}

std::string schema_for(const std::string& text, const provider_registry& registry) {
    const provider_uri uri = parse_provider_uri(text);
    const auto& backend = registry.find(uri);
    return backend.schema ? backend.schema(uri) : "";
}

}  // namespace shedlock
