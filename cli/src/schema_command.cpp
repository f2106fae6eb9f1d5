// shedlock schema print|apply: the lock table's DDL for a backend, or create it.
#include "commands.hpp"
#include "exit_codes.hpp"
#include "provider_factory.hpp"
#include "run_store_factory.hpp"

#include <shedlock/error.hpp>
#include <shedlock/provider_registry.hpp>

#include <shedlock/provider_uri.hpp>

#include <CLI/CLI.hpp>

#include <iostream>

namespace shedlock::cli {
namespace {

struct schema_options {
    std::string provider;
};

int print(const schema_options& o) {
    const std::string ddl = schema_for(o.provider);
    if (ddl.empty()) std::cout << "-- " << parse_provider_uri(o.provider).scheme << " needs no schema\n";
    else std::cout << ddl << "\n";
    return exit_ok;
}

int apply(const schema_options& o) {
    auto opened = open_provider(o.provider, {.create_schema = true});
    const std::string table = opened.provider->record_table();
    if (table.empty()) {
        std::cout << opened.kind << " needs no schema\n";
        return exit_ok;
    }
    std::cout << "lock table " << table << " is ready on " << opened.display << "\n";
    try {
        (void)open_run_store(o.provider, {.create_schema = true, .retention = {}});
        std::cout << "run-record table is ready\n";
    } catch (const configuration_error& e) {
        std::cout << "run records: " << e.what() << "\n";  // a backend without a run store in this build
    }
    try {
        (void)open_idempotency_store(o.provider, {.create_schema = true}, registry());
        std::cout << "claims table is ready\n";
    } catch (const configuration_error& e) {
        std::cout << "claims: " << e.what() << "\n";  // a backend without an idempotency store in this build
    }
    return exit_ok;
}

}  // namespace

void add_schema_command(CLI::App& app, int& exit_status) {
    auto o = std::make_shared<schema_options>();
    auto* cmd = app.add_subcommand("schema", "Print or apply the lock table's DDL");
    cmd->require_subcommand(1);
    cmd->footer("\nExamples:\n  shedlock schema print -p 'postgresql://db/app?table=ops.shedlock' > V1__shedlock.sql\n"
                "  shedlock schema apply -p sqlite:/var/lib/locks.db");
    auto* print_cmd = cmd->add_subcommand("print", "Print the DDL of the lock, run-record and claims tables (for Flyway/Liquibase); connects to nothing");
    print_cmd->add_option("--provider,-p", o->provider, "Lock backend URI")->envname("SHEDLOCK_PROVIDER")->required();
    print_cmd->callback([o, &exit_status] { exit_status = print(*o); });
    auto* apply_cmd = cmd->add_subcommand("apply", "Create the lock, run-record and claims tables if they do not exist");
    apply_cmd->add_option("--provider,-p", o->provider, "Lock backend URI")->envname("SHEDLOCK_PROVIDER")->required();
    apply_cmd->callback([o, &exit_status] { exit_status = apply(*o); });
}

}  // namespace shedlock::cli
