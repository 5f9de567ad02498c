// `kube-sandbox kubeconfig`: prints the admin kubeconfig that serve wrote in the data directory.
#include <fstream>
#include <ostream>

#include "cli.h"
#include "data_dir.h"

namespace sandbox {

Command kubeconfig_command() {
  Command c;
  c.name = "kubeconfig";
  c.summary = "Print the sandbox's admin kubeconfig";
  c.synopsis =
      "Usage: kube-sandbox kubeconfig [--data-dir DIR]\n\n"
      "Prints the admin kubeconfig (context \"kube-sandbox\") that `kube-sandbox serve` wrote in\n"
      "the data directory. Use it with: kube-sandbox kubeconfig > sandbox.kubeconfig\n";
  c.flags = FlagSet({data_dir_flag()});
  c.run = [c](const ParsedFlags& flags, CommandContext& ctx) {
    if (!flags.positional.empty()) {
      return usage_error(c, "unexpected argument \"" + flags.positional[0] + "\"", ctx);
    }
    auto data = resolve_data_dir(flags);
    if (!data) {
      ctx.err << "kube-sandbox kubeconfig: " << data.error() << "\n";
      return kExitFailure;
    }
    std::ifstream in(data->kubeconfig_file(), std::ios::binary);
    if (!in) {
      ctx.err << "kube-sandbox kubeconfig: no kubeconfig in " << data->root().string()
              << " yet: start the sandbox first (kube-sandbox serve)\n";
      return kExitFailure;
    }
    ctx.out << in.rdbuf();
    return kExitOk;
  };
  return c;
}

}  // namespace sandbox
