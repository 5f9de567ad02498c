// `kube-sandbox console --web`: the running sandbox's web console in the default browser, or its
// URL when there is no browser.
#include "console_web.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cstdlib>
#include <ostream>

#include "data_dir.h"
#include "web_console_endpoint.h"

extern char** environ;

namespace sandbox {
namespace {

bool has_display() {
  for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY"}) {
    const char* value = std::getenv(name);
    if (value && *value) {
      return true;
    }
  }
  return false;
}

// Runs `xdg-open url` and waits for it (it hands the URL to the browser and returns); true when
// it said it did.
bool xdg_open(const std::string& url) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  std::string program = "xdg-open";
  std::string argument = url;
  char* argv[] = {program.data(), argument.data(), nullptr};
  pid_t pid = 0;
  int failed = posix_spawnp(&pid, "xdg-open", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (failed != 0) {
    return false;
  }
  int status = 0;
  return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

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
      ctx.err << "kube-sandbox console: --web: " << kubeconfig.string()
              << " is not a kube-sandbox data directory's kubeconfig; the web console is served "
                 "by kube-sandbox serve for its own cluster (name its --data-dir)\n";
      return kExitFailure;
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
  auto url = web_console_login_url(*dir);
  if (!url) {
    ctx.err << "kube-sandbox console: " << url.error() << "\n";
    return kExitFailure;
  }
  if (has_display() && xdg_open(*url)) {
    ctx.out << "kube-sandbox: the web console is open in the browser\n";
    return kExitOk;
  }
  ctx.out << "kube-sandbox: open the web console in a browser on this machine: " << *url << "\n";
  return kExitOk;
}

}  // namespace sandbox
