// shedlock claims: the idempotency keys of a backend (docs/idempotency.md), and resetting one.
#include "claims_command.hpp"

#include "config_module.hpp"
#include "exit_codes.hpp"
#include "output.hpp"
#include "provider_factory.hpp"
#include "usage_error.hpp"

#include <shedlock/error.hpp>
#include <shedlock/idempotency_store.hpp>

#include <iostream>

namespace shedlock::cli {
namespace {

std::string claim_json(const claim_record& r) {
    return "{\"key\": " + json_string(r.key) + ", \"state\": " + json_string(r.state) + ", \"owner\": " +
           json_string(r.owner) + ", \"attempt\": " + std::to_string(r.attempt) +
           ", \"fencing_token\": " + (r.fencing_token ? std::to_string(*r.fencing_token) : "null") +
           ", \"claimed_at\": " + json_string(iso_time(r.claimed_at)) + ", \"expires_at\": " +
           json_string(iso_time(r.expires_at)) +
           ", \"finished_at\": " + (r.finished_at ? json_string(iso_time(*r.finished_at)) : "null") +
           ", \"result\": " + json_string(r.result) + "}";
}

void print_claims(const std::vector<claim_record>& records, bool json) {
    if (json) {
        std::cout << "[";
        for (std::size_t i = 0; i < records.size(); ++i) std::cout << (i ? ",\n " : "\n ") << claim_json(records[i]);
        std::cout << (records.empty() ? "]\n" : "\n]\n");
        return;
    }
    std::vector<std::vector<std::string>> rows{
        {"KEY", "STATE", "ATTEMPT", "OWNER", "TOKEN", "CLAIMED", "EXPIRES", "FINISHED", "RESULT"}};
    for (const auto& r : records)
        rows.push_back({r.key, r.state, std::to_string(r.attempt), r.owner.empty() ? "-" : r.owner,
                        r.fencing_token ? std::to_string(*r.fencing_token) : "-", iso_time(r.claimed_at),
                        iso_time(r.expires_at), r.finished_at ? iso_time(*r.finished_at) : "-", r.result});
    std::cout << format_table(rows);
}

std::unique_ptr<idempotency_store> open_claims(claims_options& o) {
    if (!o.config.empty() && o.provider.empty()) o.provider = config_module().config_provider(o.config);
    if (o.provider.empty()) throw missing_option("--provider (or --config with [shedlock] provider) is required");
    return open_idempotency_store(o.provider, {}, registry());
}

}  // namespace

int list_claims_command(claims_options o) {
    print_claims(open_claims(o)->list(), o.json);
    return exit_ok;
}

int reset_claim_command(claims_options o) {
    if (!o.force) {
        std::cerr << "shedlock claims reset: resetting \"" << printable(o.key)
                  << "\" lets its work run again (e.g. a second settlement); add --force if that is what you want\n";
        return exit_usage;
    }
    if (!open_claims(o)->reset(o.key)) {
        std::cerr << "shedlock claims reset: no record of \"" << printable(o.key) << "\"\n";
        return 1;
    }
    std::cout << "reset \"" << printable(o.key) << "\": it can be claimed again\n";
    return exit_ok;
}

}  // namespace shedlock::cli
