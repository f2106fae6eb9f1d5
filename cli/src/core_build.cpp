// The build identity of the shared core (libshedlock-core.so.<ABI>, cli/module_targets.cmake),
// compiled into the core alone: the program compares it with its own before it loads a module
// (module_files.hpp, foreign_core), since LD_LIBRARY_PATH may hand it another build's core.
#include "module_abi.hpp"
#include "module_build.hpp"

extern "C" [[gnu::visibility("default")]] const char* SHEDLOCK_CORE_BUILD_FUNCTION() { return SHEDLOCK_MODULE_BUILD; }
