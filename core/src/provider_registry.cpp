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

void provider_registry::add_on_demand(std::string name, std::vector<std::string> schemes,
                                      std::function<void(provider_registry&)> load) {
    const std::lock_guard lock(mutex_);
    for (const auto& known : on_demand_)
        if (known->name == name) return;
    on_demand_.push_back(std::make_unique<on_demand>(on_demand{std::move(name), std::move(schemes), std::move(load)}));
}

const backend_registration* provider_registry::registered(const std::string& scheme) const {
    const std::lock_guard lock(mutex_);
    for (const auto& backend : backends_)
        if (has_scheme(*backend, scheme)) return backend.get();
    return nullptr;
}

const provider_registry::on_demand* provider_registry::declared(const std::string& scheme) const {
    const std::lock_guard lock(mutex_);
    for (const auto& entry : on_demand_)
        if (std::find(entry->schemes.begin(), entry->schemes.end(), scheme) != entry->schemes.end()) return entry.get();
    return nullptr;
}

const backend_registration& provider_registry::find(const provider_uri& uri) const {
    if (const auto* backend = registered(uri.scheme)) return *backend;
    if (const auto* entry = declared(uri.scheme)) {
        // load() calls add(), which takes mutex_: only load_mutex_ is held around it. The
        // const_cast is sound: on-demand entries exist only in a registry that add_on_demand()
        // modified, so the object is not const (and it cannot be copied into one).
        const std::lock_guard loading(load_mutex_);
        if (!registered(uri.scheme)) entry->load(const_cast<provider_registry&>(*this));
        if (const auto* backend = registered(uri.scheme)) return *backend;
        throw configuration_error("provider \"" + entry->name + "\" was loaded for scheme \"" + uri.scheme +
                                  "\" but did not register it; the installed provider module does not match this "
                                  "program (reinstall both from one build)");
    }
    throw configuration_error("provider URI \"" + uri.redacted() + "\": scheme \"" + uri.scheme +
                              "\" is not supported by this build; use one of: " + supported_schemes());
}

std::vector<std::string> provider_registry::schemes() const {
    const std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    for (const auto& backend : backends_) out.insert(out.end(), backend->schemes.begin(), backend->schemes.end());
    for (const auto& entry : on_demand_)
        for (const auto& scheme : entry->schemes)
            if (std::find(out.begin(), out.end(), scheme) == out.end()) out.push_back(scheme);
    return out;
}

std::string provider_registry::supported_schemes() const {
    std::string out;
    for (const auto& scheme : schemes()) out += (out.empty() ? "" : ", ") + shown_scheme(scheme);
    return out.empty() ? "none (no provider is registered; call shedlock::register_all_providers())" : out;
}

std::unique_ptr<backend_session> open_backend(const std::string& text, const open_request& request,
                                              const provider_registry& registry) {
    const provider_uri uri = parse_provider_uri(text);
    const auto& backend = registry.find(uri);
    session_parts parts;
    if (backend.open_session) parts = backend.open_session(uri, request);
    if (!parts.schema && backend.schema) parts.schema = [schema = backend.schema, uri] { return schema(uri); };
    return std::make_unique<backend_session>(backend.name, uri.redacted(), std::move(parts));
}

std::unique_ptr<lock_provider> open_lock_provider(const std::string& text, const open_request& request,
                                                  const provider_registry& registry) {
    return open_backend(text, request, registry)->make_locks();
}

std::unique_ptr<run_store> open_run_store(const std::string& text, const open_request& request,
                                          const provider_registry& registry) {
    return open_backend(text, request, registry)->make_runs();
}

std::unique_ptr<idempotency_store> open_idempotency_store(const std::string& text, const open_request& request,
                                                          const provider_registry& registry) {
    return open_backend(text, request, registry)->make_claims();
}

std::string schema_for(const std::string& text, const provider_registry& registry) {
    const provider_uri uri = parse_provider_uri(text);
    const auto& backend = registry.find(uri);
    return backend.schema ? backend.schema(uri) : "";
}

}  // namespace shedlock
