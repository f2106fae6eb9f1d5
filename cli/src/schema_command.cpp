// shedlock schema print|apply: the lock table's DDL for a backend, or create it.
#include "schema_command.hpp"

#include "exit_codes.hpp"
#include "provider_factory.hpp"

#include <shedlock/error.hpp>
#include <shedlock/provider_registry.hpp>
#include <shedlock/provider_uri.hpp>

#include <iostream>

namespace shedlock::cli {

int schema_print_command(const schema_options& o) {
    const std::string ddl = schema_for(o.provider);
    if (ddl.empty()) std::cout << "-- " << parse_provider_uri(o.provider).scheme << " needs no schema\n";
    else std::cout << ddl << "\n";
    return exit_ok;
}

int schema_apply_command(const schema_options& o) {
    auto opened = open_provider(o.provider, {.create_schema = true});
    const std::string table = inspect(*opened.provider).record_table();
    if (table.empty()) {
        std::cout << opened.kind << " needs no schema\n";
        return exit_ok;
    }
    std::cout << "lock table " << table << " is ready on " << opened.display << "\n";
    try {
        (void)opened.session->runs();
        std::cout << "run-record table is ready\n";
    } catch (const configuration_error& e) {
        std::cout << "run records: " << e.what() << "\n";  // a backend without a run store in this build
    }
    try {
        (void)opened.session->claims();
        std::cout << "claims table is ready\n";
    } catch (const configuration_error& e) {
        std::cout << "claims: " << e.what() << "\n";  // a backend without an idempotency store in this build
    }
    return exit_ok;
}

}  // namespace shedlock::cli
