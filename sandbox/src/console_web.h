// `kube-sandbox console --web`: opens the web console of the sandbox whose data directory (or
// kubeconfig in it) is named, in the default browser through xdg-open when there is a display,
// else prints its login URL. Fails when that sandbox's serve is not running. Given another
// cluster's kubeconfig, serves the console itself as a gateway (console_web_gateway.h).
#pragma once

#include "cli.h"

namespace sandbox {

int open_web_console(const ParsedFlags& flags, CommandContext& ctx);

}  // namespace sandbox
