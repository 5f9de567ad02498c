#include "cli.h"

#include <algorithm>
#include <ostream>

#include "apiserver/version.h"

namespace sandbox {

Command console_command();  // console_command.cpp

namespace {

std::string command_list(const std::vector<Command>& commands) {
  // The names in a column two spaces wider than the longest.
  size_t width = 0;
  for (const auto& c : commands) {
    width = std::max(width, c.name.size() - (c.name.rfind(' ') + 1));
  }
  std::string text;
  for (const auto& c : commands) {
    std::string left = "  " + c.name.substr(c.name.rfind(' ') + 1);
    left.resize(std::max<size_t>(16, width + 4), ' ');
    text += left + c.summary + "\n";
  }
  return text;
}

std::string top_usage(const std::vector<Command>& commands) {
  return "kube-sandbox: a local Kubernetes " + apiserver::api_version_line() +
         " API server with an embedded etcd-compatible store and a desktop console.\n\n"
         "Usage:\n"
         "  kube-sandbox [serve flags]     start the sandbox (the same as `kube-sandbox serve`)\n"
         "  kube-sandbox COMMAND [flags]\n\n"
         "Commands:\n" +
         command_list(commands) + "\nRun `kube-sandbox COMMAND --help` for a command's flags.\n";
}

const Command* find_command(const std::vector<Command>& commands, const std::string& name) {
  for (const auto& c : commands) {
    if (c.name.substr(c.name.rfind(' ') + 1) == name) {
      return &c;
    }
  }
  return nullptr;
}

bool is_help(const std::string& arg) {
  return arg == "--help" || arg == "-h";
}

int dispatch(const Command& command, const std::vector<std::string>& args, CommandContext& ctx) {
  if (!command.subcommands.empty()) {
    if (args.empty() || is_help(args[0])) {
      (args.empty() ? ctx.err : ctx.out) << command.usage();
      return args.empty() ? kExitUsage : kExitOk;
    }
    const Command* sub = find_command(command.subcommands, args[0]);
    if (sub == nullptr) {
      return usage_error(command, "unknown command \"" + args[0] + "\"", ctx);
    }
    return dispatch(*sub, {args.begin() + 1, args.end()}, ctx);
  }
  for (const auto& a : args) {
    if (a == "--") {
      break;
    }
    if (is_help(a)) {
      ctx.out << command.usage();
      return kExitOk;
    }
  }
  auto parsed = command.flags.parse(args);
  if (!parsed) {
    return usage_error(command, parsed.error(), ctx);
  }
  return command.run(*parsed, ctx);
}

}  // namespace

std::string Command::usage() const {
  std::string text = synopsis;
  if (!subcommands.empty()) {
    text += "\nCommands:\n" + command_list(subcommands);
  }
  std::string described = flags.describe();
  if (!described.empty()) {
    text += "\nFlags:\n" + described;
  }
  return text;
}

std::vector<Command> all_commands() {
  return {
      serve_command(), console_command(),        kubeconfig_command(),
      store_command(), etcd_command(),           kube_apiserver_command(),
      seed_command(),  named_snapshot_command(), version_command(),
  };
}

int command_failure(const Command& command, const std::string& message, CommandContext& ctx) {
  ctx.err << "kube-sandbox " << command.name << ": " << message << "\n";
  return kExitFailure;
}

int usage_error(const Command& command, const std::string& message, CommandContext& ctx) {
  ctx.err << "kube-sandbox " << command.name << ": " << message << "\n\n" << command.usage();
  return kExitUsage;
}

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CommandContext ctx{out, err};
  auto commands = all_commands();
  if (!args.empty() && (is_help(args[0]) || args[0] == "help")) {
    if (args.size() > 1) {
      const Command* c = find_command(commands, args[1]);
      if (c == nullptr) {
        err << "kube-sandbox: unknown command \"" << args[1] << "\"\n\n" << top_usage(commands);
        return kExitUsage;
      }
      out << c->usage();
      return kExitOk;
    }
    out << top_usage(commands);
    return kExitOk;
  }
  // No command, or flags first: the default command, serve, with these flags.
  if (args.empty() || args[0].rfind("-", 0) == 0) {
    const Command* serve = find_command(commands, "serve");
    if (auto parsed = serve->flags.parse(args); !parsed) {
      err << "kube-sandbox: " << parsed.error() << "\n\n" << top_usage(commands);
      return kExitUsage;
    }
    return dispatch(*serve, args, ctx);
  }
  const Command* command = find_command(commands, args[0]);
  if (command == nullptr) {
    err << "kube-sandbox: unknown command \"" << args[0] << "\"\n\n" << top_usage(commands);
    return kExitUsage;
  }
  return dispatch(*command, {args.begin() + 1, args.end()}, ctx);
}

}  // namespace sandbox
