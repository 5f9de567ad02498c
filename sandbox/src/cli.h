// The kube-sandbox command line: subcommands, help and exit codes.
// Exit codes: 0 success, 1 the command failed, 2 the command line was wrong.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "flags.h"

namespace sandbox {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

struct CommandContext {
  std::ostream& out;
  std::ostream& err;
};

struct Command {
  std::string name;      // "store", or "store get" for a nested command
  std::string summary;   // one line for the command list
  std::string synopsis;  // "Usage: ..." and what it does; the flags are appended by usage()
  FlagSet flags{{}};
  std::vector<Command> subcommands;  // when set, the first positional picks one
  std::function<int(const ParsedFlags& flags, CommandContext& ctx)> run;

  std::string usage() const;
};

// The subcommands in the order help lists them; each is defined next to its code.
std::vector<Command> all_commands();
Command etcd_command();
Command kube_apiserver_command();
Command kubeconfig_command();
Command seed_command();
Command serve_command();
Command named_snapshot_command();
Command store_command();
Command version_command();

// serve's run, for a command that is serve under other flags (kube-apiserver): usage errors name
// `command`.
int run_serve(const Command& command, const ParsedFlags& flags, CommandContext& ctx);

// Runs the command line (argv without the program name).
int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// Prints "kube-sandbox <command>: <message>" to err; returns kExitFailure (the command failed).
int command_failure(const Command& command, const std::string& message, CommandContext& ctx);

// Prints "kube-sandbox <command>: <message>" and the command's usage to err; returns kExitUsage.
int usage_error(const Command& command, const std::string& message, CommandContext& ctx);

}  // namespace sandbox
