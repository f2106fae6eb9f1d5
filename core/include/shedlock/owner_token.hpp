#pragma once
/// \file
/// Identity of one acquisition.

#include <string>

namespace shedlock {

/// `<hostname>:<pid>:<random>`, unique per call, at most 255 characters. Unlock and extend
/// only touch a record whose `locked_by` equals the token of the acquisition that wrote it.
std::string make_owner_token();

/// `<hostname>:<pid>` of this process (the readable part of the owner token).
std::string instance_id();

}  // namespace shedlock
