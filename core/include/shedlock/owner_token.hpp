#pragma once
/// \file
/// Identity of one acquisition.

#include <string>
#include <string_view>

namespace shedlock {

/// `<hostname>:<pid>:<nonce><random>`, unique per call, at most 255 characters: the nonce (6
/// characters) is drawn once per process, the random part (12) per call. Unlock and extend only
/// touch a record whose `locked_by` equals the token of the acquisition that wrote it.
std::string make_owner_token();

/// `<hostname>:<pid>` of this process (the readable part of the owner token).
std::string instance_id();

/// The process that made owner token `token`: `<hostname>:<pid>:<nonce>`. Unlike instance_id(), it
/// tells apart two processes with one host name and pid (a container restarted as pid 1, two
/// replicas sharing the host's network name). Empty when `token` was not made by
/// make_owner_token() (e.g. Java ShedLock writes the host name alone).
std::string process_of_owner(std::string_view token);

/// This process's process_of_owner().
std::string this_process();

}  // namespace shedlock
