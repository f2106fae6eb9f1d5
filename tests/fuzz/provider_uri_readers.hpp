#pragma once
// Everything that reads a parsed provider URI, for the provider_uri fuzz target: the generic
// uri_options accessors and each provider built into this tree.

#include <shedlock/provider_uri.hpp>

#include <string>
#include <vector>

namespace shedlock::fuzz {

struct provider_uri_reader {
    std::string name;
    /// The schemes the reader accepts; empty: every scheme. Readers are asked only for their own
    /// schemes, or all of them for a scheme no reader takes (each then rejects it).
    std::vector<std::string> schemes;
    /// Reads the URI as this provider would and returns the text a user may see of it: the
    /// configuration_error messages (caught here) and what the provider shows of the options it
    /// read (a redacted server URI, the host). Any other exception escapes.
    std::vector<std::string> (*read)(const provider_uri& uri);
};

const std::vector<provider_uri_reader>& provider_uri_readers();

}  // namespace shedlock::fuzz
