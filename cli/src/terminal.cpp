#include "terminal.hpp"

#include <signal.h>
#include <unistd.h>

namespace shedlock::cli {
namespace {

/// tcsetpgrp from a background group raises SIGTTOU unless it is blocked.
void set_foreground(pid_t group) {
    sigset_t ttou, old;
    sigemptyset(&ttou);
    sigaddset(&ttou, SIGTTOU);
    ::pthread_sigmask(SIG_BLOCK, &ttou, &old);
    ::tcsetpgrp(STDIN_FILENO, group);
    ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

}  // namespace

foreground_terminal::foreground_terminal(bool wanted)
    : active_(wanted && ::isatty(STDIN_FILENO) == 1 && ::tcgetpgrp(STDIN_FILENO) == ::getpgrp()) {}

void foreground_terminal::give_to(pid_t group) {
    if (!active_) return;
    set_foreground(group);
    given_ = true;
}

void foreground_terminal::take_back() {
    if (!given_) return;
    set_foreground(::getpgrp());
    given_ = false;
}

void foreground_terminal::suspend_with(pid_t group) {
    if (!active_) {
        // No terminal to hand over: a command stopped by someone else is left stopped, and the
        // signals we forward come with SIGCONT, so a stop request still ends it.
        return;
    }
    take_back();
    ::kill(::getpid(), SIGTSTP);  // default action: stop; returns once we are continued
    give_to(group);
    ::kill(-group, SIGCONT);
}

}  // namespace shedlock::cli
