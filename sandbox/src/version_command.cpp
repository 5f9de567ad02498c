#include <nlohmann/json.hpp>
#include <ostream>

#include "apiserver/version.h"
#include "cli.h"

namespace sandbox {

Command version_command() {
  Command c;
  c.name = "version";
  c.summary = "Print the sandbox version and the Kubernetes API version it serves";
  c.synopsis =
      "Usage: kube-sandbox version [-o json]\n\n"
      "Prints kube-sandbox's version and the Kubernetes API version it serves.\n";
  c.flags = FlagSet({{"output", "o", true, "FORMAT", "output format: text (default) or json"}});
  c.run = [c](const ParsedFlags& flags, CommandContext& ctx) {
    if (!flags.positional.empty()) {
      return usage_error(c, "unexpected argument \"" + flags.positional[0] + "\"", ctx);
    }
    const auto& v = apiserver::version_info();
    std::string format = flags.get("output", "text");
    if (format == "json") {
      nlohmann::json doc = {
          {"sandboxVersion", v.sandbox_version},
          {"kubernetesVersion", apiserver::api_version_line()},
          {"serverVersion",
           {{"major", v.major},
            {"minor", v.minor},
            {"gitVersion", v.git_version},
            {"compiler", v.go_version},
            {"platform", v.platform}}},
      };
      ctx.out << doc.dump(2) << "\n";
      return kExitOk;
    }
    if (format != "text") {
      return usage_error(c, "unknown output format \"" + format + "\" (want text or json)", ctx);
    }
    ctx.out << "kube-sandbox " << v.sandbox_version << "\n"
            << "Kubernetes API " << apiserver::api_version_line() << " (" << v.git_version
            << ", " << v.platform << ")\n";
    return kExitOk;
  };
  return c;
}

}  // namespace sandbox
