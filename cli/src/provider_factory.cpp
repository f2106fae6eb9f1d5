#include "provider_factory.hpp"

#include "provider_modules.hpp"

#include <shedlock/provider_uri.hpp>
#include <shedlock/uri_password.hpp>

namespace shedlock::cli {

provider_registry& registry() {
    static provider_registry& filled = [] () -> provider_registry& {
        declare_provider_modules(provider_registry::global());
        return provider_registry::global();
    }();
    return filled;
}

std::string supported_schemes() { return registry().supported_schemes(); }

opened_provider open_provider(const std::string& text, const open_options& how) {
    const provider_uri uri = parse_provider_uri(text);
    opened_provider opened;
    opened.kind = registry().find(uri).schemes.front();
    opened.display = uri.redacted();
    opened.secret_env = secret_environment_variables(uri);
    open_request request;
    request.create_schema = how.create_schema;
    request.create_store_schema = how.create_store_schema;
    request.retention = how.retention;
    opened.session = open_backend(text, request, registry());
    opened.provider = opened.session->share_locks();
    return opened;
}

std::string schema_for(const std::string& uri) { return shedlock::schema_for(uri, registry()); }

}  // namespace shedlock::cli
