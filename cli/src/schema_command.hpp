#pragma once
// shedlock schema print|apply: the lock table's DDL for a backend, or create it.

#include <string>

namespace shedlock::cli {

struct schema_options {
    std::string provider;
};

/// Prints the DDL without connecting; the process exit status.
int schema_print_command(const schema_options& options);
/// Creates the lock and run-record tables if they do not exist; the process exit status.
int schema_apply_command(const schema_options& options);

}  // namespace shedlock::cli
