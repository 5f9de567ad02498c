// `kube-sandbox console`: the desktop console against the cluster of a kubeconfig context (a
// sandbox or any other), interactive or driven by a script for tests and screenshots.
#include <charconv>
#include <cstdlib>
#include <ostream>

#include "cli.h"
#include "console/app/settings.h"
#include "console/client/rest_client.h"
#include "console/ui/console_app.h"
#include "console_web.h"
#include "data_dir.h"

namespace sandbox {

namespace {

// "1280x800" -> width and height.
bool parse_size(const std::string& text, int& width, int& height) {
  const auto x = text.find('x');
  if (x == std::string::npos) {
    return false;
  }
  const char* end = text.data() + text.size();
  auto [p1, e1] = std::from_chars(text.data(), text.data() + x, width);
  auto [p2, e2] = std::from_chars(text.data() + x + 1, end, height);
  return e1 == std::errc() && e2 == std::errc() && p1 == text.data() + x && p2 == end &&
         width >= 320 && height >= 240 && width <= 16384 && height <= 16384;
}

}  // namespace

Command console_command() {
  Command c;
  c.name = "console";
  c.summary = "Run the desktop console against any cluster";
  c.synopsis =
      "Usage: kube-sandbox console [--kubeconfig FILE] [--context NAME]\n"
      "       kube-sandbox console --script FILE [--screenshot-dir DIR] [--state-dump FILE]\n"
      "       kube-sandbox console --web [--data-dir DIR | --kubeconfig DIR/kubeconfig]\n"
      "       kube-sandbox console --web --kubeconfig FILE [--context NAME] [--web-listen ADDR]\n\n"
      "Opens the desktop console: the kinds the cluster serves, their objects live through\n"
      "watches, the watch events, and an editor that applies YAML with server-side apply. It\n"
      "talks only to the cluster's REST API, with the credentials of the kubeconfig context.\n"
      "With --script it runs a script of console commands (see docs/cli.md) and exits: 0 when\n"
      "the script ends, 1 when a wait times out or a command fails.\n"
      "With --web it opens the web console of the sandbox that serves from the data directory\n"
      "(a running kube-sandbox serve) in the default browser, or prints its URL when there is\n"
      "no browser; closing the tab does not stop the server. With --web and the kubeconfig of\n"
      "another cluster, this command serves the web console itself on loopback (--web-listen)\n"
      "and sends its API calls to that cluster with the context's credentials, until Ctrl-C.\n";
  c.flags = FlagSet({
      {"kubeconfig", "", true, "FILE", "kubeconfig to use (default $KUBECONFIG, ~/.kube/config)"},
      {"web", "", false, "", "open the web console instead (a sandbox's, or served here)"},
      {"web-listen", "", true, "ADDRESS:PORT",
       "with --web and another cluster's kubeconfig: where this command serves the web console "
       "(loopback only; default 127.0.0.1:6480, or a free port when that is taken)"},
      data_dir_flag(),
      {"context", "", true, "NAME", "kubeconfig context (default its current-context)"},
      {"script", "", true, "FILE", "run the console commands of FILE, then exit"},
      {"screenshot-dir", "", true, "DIR", "where the script's screenshots are written"},
      {"state-dump", "", true, "FILE", "write the console's state as JSON here at the end"},
      {"frame-stats", "", true, "FILE", "write each frame's wall and CPU time (ms) here"},
      {"window-size", "", true, "WxH", "the window's size (default 1440x900, or as last closed)"},
      {"console-ini", "", true, "FILE",
       "where the layout, theme and favourites are kept (default "
       "$XDG_CONFIG_HOME/kube-sandbox/console.ini; with --script, none unless given)"},
  });
  c.run = [c](const ParsedFlags& flags, CommandContext& ctx) {
    if (!flags.positional.empty()) {
      return usage_error(c, "unexpected argument \"" + flags.positional[0] + "\"", ctx);
    }
    if (flags.has("web")) {
      return open_web_console(flags, ctx);
    }
    if (flags.has("data-dir")) {
      return usage_error(c, "--data-dir names the sandbox whose web console --web opens", ctx);
    }
    if (flags.has("web-listen")) {
      return usage_error(c, "--web-listen goes with --web", ctx);
    }
    console::ui::RunOptions options;
    if (flags.has("window-size") &&
        !parse_size(flags.get("window-size"), options.width, options.height)) {
      return usage_error(c, "--window-size wants WIDTHxHEIGHT, e.g. 1280x800", ctx);
    }
    // --state-dump alone is fine (written when the window closes); screenshots need a script.
    if (flags.has("screenshot-dir") && !flags.has("script")) {
      return usage_error(c, "--screenshot-dir needs --script", ctx);
    }
    options.script_path = flags.get("script");
    options.screenshot_dir = flags.get("screenshot-dir");
    options.state_dump_path = flags.get("state-dump");
    options.size_given = flags.has("window-size");
    if (flags.has("console-ini")) {
      options.settings_path = flags.get("console-ini");
    } else if (!flags.has("script")) {
      options.settings_path =
          console::app::default_settings_path(std::getenv("XDG_CONFIG_HOME"), std::getenv("HOME"));
    }
    options.frame_stats_path = flags.get("frame-stats");
    const std::string path = flags.get("kubeconfig", console::client::default_kubeconfig_path());
    auto access = console::client::load_kubeconfig(path, flags.get("context"));
    if (!access.ok()) {
      ctx.err << "kube-sandbox console: " << access.error() << "\n";
      return kExitFailure;
    }
    return console::ui::run_console(*access, options, ctx.err) == 0 ? kExitOk : kExitFailure;
  };
  return c;
}

}  // namespace sandbox
