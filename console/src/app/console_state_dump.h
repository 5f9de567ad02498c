// What ConsoleState's dump (console_state_dump.cpp) shares with the messages of failed actions:
// how an object is named in text.
#pragma once

#include <string>

#include "console/app/console_state.h"

namespace console::app {

// "namespace/name", or the name alone for a cluster-scoped object.
std::string describe(const ObjectRef& ref);

}  // namespace console::app
