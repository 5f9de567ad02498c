// `kube-sandbox console --web`: the running sandbox's web console in the default browser, or its
// URL when there is no browser.
#include "console_web.h"

#include <ostream>

#include "browser_open.h"
#include "console_web_gateway.h"
#include "data_dir.h"
#include "web_console_endpoint.h"

namespace sandbox {

int open_web_console(const ParsedFlags& flags, CommandContext& ctx) {
  if (flags.has("script") || flags.has("screenshot-dir") || flags.has("state-dump")) {
    ctx.err << "kube-sandbox console: --web opens the web console; --script, --screenshot-dir "
               "and --state-dump are the desktop console's\n";
    return kExitUsage;
  }
  // The sandbox whose kubeconfig is named (its data directory holds it), else --data-dir's.
  std::optional<DataDir> dir;
  if (flags.has("kubeconfig") && !flags.has("data-dir")) {
    std::filesystem::path kubeconfig = flags.get("kubeconfig");
    if (kubeconfig.filename() != "kubeconfig" ||
        !std::filesystem::exists(kubeconfig.parent_path() / "pki")) {
      // Another cluster: this process serves the console and forwards its API calls there.
      return run_web_console_gateway(kubeconfig.string(), flags, ctx);
    }
    dir.emplace(kubeconfig.parent_path());
  } else {
    auto resolved = resolve_data_dir(flags);
    if (!resolved) {
      ctx.err << "kube-sandbox console: " << resolved.error() << "\n";
      return kExitFailure;
    }
    dir.emplace(std::move(*resolved));
  }
  if (flags.has("web-listen")) {
    ctx.err << "kube-sandbox console: --web-listen is for another cluster's kubeconfig; a "
               "sandbox's web console listens where its serve --web-listen says\n";
    return kExitUsage;
  }
  auto url = web_console_login_url(*dir);
  if (!url) {
    ctx.err << "kube-sandbox console: " << url.error() << "\n";
    return kExitFailure;
  }
  if (open_in_browser(*url)) {
    ctx.out << "kube-sandbox: the web console is open in the browser\n";
    return kExitOk;
  }
  ctx.out << "kube-sandbox: open the web console in a browser on this machine: " << *url << "\n";
  return kExitOk;
}

}  // namespace sandbox
