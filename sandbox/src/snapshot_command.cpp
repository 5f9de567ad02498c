// `kube-sandbox snapshot save|restore|list|delete NAME`: named snapshots of a sandbox's store, to
// reset it between tests in milliseconds.
//
// Each invocation works one of two ways:
// - online, through the running server's /admin/snapshots endpoint with the credentials of a
//   kubeconfig context (they must be in group system:masters, as the sandbox's admin
//   kubeconfig is): when --kubeconfig or --context is given, or when KUBECONFIG is set and
//   --data-dir is not;
// - offline, on the data directory's store with its lock taken, so refused while a server holds
//   it: when --data-dir is given, or when none of the above is (the default data directory, as
//   serve's).
// Both see the same snapshots, <data-dir>/snapshots/NAME.snap, and restore the same way
// (apiserver/snapshots.h): revisions only go forward.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "apiserver/snapshots.h"
#include "cli.h"
#include "console/client/rest_client.h"
#include "data_dir.h"
#include "store/store.h"

namespace sandbox {
namespace {

namespace snapshots = apiserver::snapshots;
using nlohmann::json;

// Saving or restoring a large store can take a while; anything else answers at once.
constexpr auto kOnlineTimeout = std::chrono::minutes(5);

std::vector<FlagSpec> mode_flags() {
  return {
      data_dir_flag(),
      {"kubeconfig", "", true, "FILE",
       "work through the running server this kubeconfig names (default $KUBECONFIG)"},
      {"context", "", true, "NAME", "kubeconfig context (default its current-context)"},
  };
}

std::string mode_rule() {
  return "Online (through the running server's API, as an admin) when --kubeconfig or --context\n"
         "is given, or KUBECONFIG is set and --data-dir is not; otherwise offline on the data\n"
         "directory, which a running server must not hold.\n";
}

// Where one invocation works: a server (access set) or a data directory (dir set).
struct Target {
  std::optional<console::client::ClusterAccess> access;
  std::optional<DataDir> dir;
  std::string name;  // the snapshot NAME argument, for the commands that take one
};

// Picks the mode by the rule above; nullopt after printing the error (exit_code says which).
std::optional<Target> pick_target(const Command& command, const ParsedFlags& flags, int& exit_code,
                                  CommandContext& ctx) {
  bool online_flags = flags.has("kubeconfig") || flags.has("context");
  if (flags.has("data-dir") && online_flags) {
    exit_code = usage_error(command,
                            "--data-dir (offline) and --kubeconfig/--context (online) exclude "
                            "each other",
                            ctx);
    return std::nullopt;
  }
  const char* env = std::getenv("KUBECONFIG");
  bool online = online_flags || (!flags.has("data-dir") && env != nullptr && *env != '\0');
  Target target;
  if (online) {
    std::string path = flags.get("kubeconfig", console::client::default_kubeconfig_path());
    auto access = console::client::load_kubeconfig(path, flags.get("context"));
    if (!access.ok()) {
      exit_code = command_failure(command, access.error(), ctx);
      return std::nullopt;
    }
    target.access = std::move(*access);
    return target;
  }
  auto dir = resolve_data_dir(flags);
  if (!dir) {
    exit_code = flags.has("data-dir") ? usage_error(command, dir.error(), ctx)
                                      : command_failure(command, dir.error(), ctx);
    return std::nullopt;
  }
  target.dir = std::move(*dir);
  return target;
}

// The data directory's store, opened with its lock; nullptr after printing why not.
std::unique_ptr<store::Store> open_store(const Command& command, const DataDir& dir,
                                         CommandContext& ctx) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir.store_dir(), ec)) {
    command_failure(
        command,
        "no store in " + dir.root().string() + " (nothing was written there yet; see --data-dir)",
        ctx);
    return nullptr;
  }
  store::Options options;
  options.dir = dir.store_dir();
  options.durability = store::Durability::Sync;
  options.take_lock = true;
  auto opened = store::Store::open(std::move(options));
  if (!opened.is_ok()) {
    command_failure(
        command,
        opened.status().code() == store::Code::Locked
            ? "the data directory " + dir.root().string() +
                  " is held by a running kube-sandbox server; stop it first, or use the "
                  "server's API with --kubeconfig"
            : opened.status().message(),
        ctx);
    return nullptr;
  }
  return std::move(opened).value();
}

// One request to the admin endpoint. On success the parsed JSON body; nullopt after printing the
// Status message (or the transport error).
std::optional<json> call(const Command& command, const console::client::ClusterAccess& access,
                         const std::string& method, const std::string& target,
                         CommandContext& ctx) {
  console::client::ClientOptions options;
  options.timeout = kOnlineTimeout;
  options.user_agent = "kube-sandbox-snapshot";
  console::client::RestClient client(access, options);
  auto sent = client.request(method, target, "", "");
  if (!sent.ok()) {
    command_failure(command, access.server + ": " + sent.error(), ctx);
    return std::nullopt;
  }
  const console::client::Response& response = *sent;
  json body = json::parse(response.body, nullptr, false);
  if (response.status / 100 != 2) {
    std::string message =
        body.is_object() && body.contains("message") && body["message"].is_string()
            ? body["message"].get<std::string>()
            : response.body;
    command_failure(command, message + " (HTTP " + std::to_string(response.status) + ")", ctx);
    return std::nullopt;
  }
  if (body.is_discarded()) {
    command_failure(command, "the server answered something other than JSON: " + response.body,
                    ctx);
    return std::nullopt;
  }
  return body;
}

std::string human_size(int64_t bytes) {
  char text[32];
  if (bytes < 1000 * 1000) {
    std::snprintf(text, sizeof text, "%.1f kB", static_cast<double>(bytes) / 1000);
  } else {
    std::snprintf(text, sizeof text, "%.1f MB", static_cast<double>(bytes) / 1e6);
  }
  return text;
}

void print_saved(const snapshots::Info& info, CommandContext& ctx) {
  ctx.out << "snapshot \"" << info.name << "\" saved at revision " << info.revision << " ("
          << human_size(info.size_bytes) << ")\n";
}

// The NAME argument checked, then the target; nullopt after printing the error.
std::optional<Target> named_target(const Command& command, const ParsedFlags& flags, int& exit_code,
                                   CommandContext& ctx) {
  if (flags.positional.size() != 1) {
    exit_code =
        usage_error(command, flags.positional.empty() ? "missing NAME" : "too many arguments", ctx);
    return std::nullopt;
  }
  const std::string& name = flags.positional[0];
  if (!snapshots::valid_name(name)) {
    exit_code = usage_error(command, snapshots::invalid_name_message(name), ctx);
    return std::nullopt;
  }
  auto target = pick_target(command, flags, exit_code, ctx);
  if (target) {
    target->name = name;
  }
  return target;
}

// The run of a command that takes NAME, given the checked name and the target.
using NamedRun =
    std::function<int(const Command& command, const Target& target, CommandContext& ctx)>;

// A command that takes NAME and the mode flags: `run` is called once both are checked. Its synopsis
// is `about`, the mode rule, then `offline_note`.
Command named_command(std::string name, std::string summary, const std::string& about, NamedRun run,
                      const std::string& offline_note = "") {
  Command c;
  c.name = std::move(name);
  c.summary = std::move(summary);
  c.synopsis = about + mode_rule() + offline_note;
  c.flags = FlagSet(mode_flags());
  c.run = [c, run = std::move(run)](const ParsedFlags& flags, CommandContext& ctx) {
    int code = kExitOk;
    auto target = named_target(c, flags, code, ctx);
    if (!target) {
      return code;
    }
    return run(c, *target, ctx);
  };
  return c;
}

// save -------------------------------------------------------------------------------------------

Command save_command() {
  return named_command(
      "snapshot save", "Save the store as a named snapshot",
      "Usage: kube-sandbox snapshot save NAME [flags]\n\n"
      "Writes a consistent copy of the store as the snapshot NAME (replacing one of that name),\n"
      "kept in the data directory's snapshots/ folder. ",
      [](const Command& c, const Target& target, CommandContext& ctx) {
        if (target.access) {
          auto body = call(c, *target.access, "POST", "/admin/snapshots/" + target.name, ctx);
          if (!body) {
            return kExitFailure;
          }
          auto info = snapshots::info_from_json(*body);
          if (!info) {
            return command_failure(c, "unexpected answer: " + body->dump(), ctx);
          }
          print_saved(*info, ctx);
          return kExitOk;
        }
        auto db = open_store(c, *target.dir, ctx);
        if (!db) {
          return kExitFailure;
        }
        snapshots::Info info;
        bool existed = false;
        if (auto error =
                snapshots::save(*db, target.dir->snapshots_dir(), target.name, info, existed)) {
          return command_failure(c, error.message, ctx);
        }
        print_saved(info, ctx);
        return kExitOk;
      });
}

// restore ----------------------------------------------------------------------------------------

void print_restored(const json& doc, CommandContext& ctx) {
  char duration[32];
  std::snprintf(duration, sizeof duration, "%.1f", doc.value("durationMs", 0.0));
  ctx.out << "snapshot \"" << doc.value("name", "") << "\" restored at revision "
          << doc.value("revision", int64_t{0}) << ": " << doc.value("written", int64_t{0})
          << " written, " << doc.value("deleted", int64_t{0}) << " deleted, "
          << doc.value("unchanged", int64_t{0}) << " unchanged in " << duration << " ms\n";
}

Command restore_command() {
  return named_command(
      "snapshot restore", "Make the store's contents those of a named snapshot",
      "Usage: kube-sandbox snapshot restore NAME [flags]\n\n"
      "Makes the store hold exactly the objects of snapshot NAME, as one write at a new\n"
      "revision: resourceVersions keep growing, older ones answer 410 Expired, and every open\n"
      "watch ends with a 410 Expired error so that clients list again. Prints what changed and\n"
      "how long the restore took in the process that did it. ",
      [](const Command& c, const Target& target, CommandContext& ctx) {
        if (target.access) {
          auto body =
              call(c, *target.access, "POST", "/admin/snapshots/" + target.name + "/restore", ctx);
          if (!body) {
            return kExitFailure;
          }
          print_restored(*body, ctx);
          return kExitOk;
        }
        std::error_code ec;
        if (!std::filesystem::is_regular_file(
                snapshots::file_of(target.dir->snapshots_dir(), target.name), ec)) {
          return command_failure(c, "snapshots \"" + target.name + "\" not found", ctx);
        }
        auto db = open_store(c, *target.dir, ctx);
        if (!db) {
          return kExitFailure;
        }
        snapshots::Restored restored;
        if (auto error =
                snapshots::restore(*db, target.dir->snapshots_dir(), target.name, restored)) {
          return command_failure(c, error.message, ctx);
        }
        print_restored(snapshots::to_json(restored), ctx);
        return kExitOk;
      });
}

// list -------------------------------------------------------------------------------------------

Command list_command() {
  Command c;
  c.name = "snapshot list";
  c.summary = "List the named snapshots";
  c.synopsis =
      "Usage: kube-sandbox snapshot list [flags]\n\n"
      "Lists the snapshots with their revision, size and time (-o table), their names only\n"
      "(-o name), or the endpoint's SnapshotList JSON (-o json). " +
      mode_rule() + "Offline, it only reads the snapshots folder, so a running server is fine.\n";
  auto specs = mode_flags();
  specs.push_back({"output", "o", true, "FORMAT", "table (default), name or json"});
  c.flags = FlagSet(specs);
  c.run = [c](const ParsedFlags& flags, CommandContext& ctx) {
    if (!flags.positional.empty()) {
      return usage_error(c, "unexpected argument \"" + flags.positional[0] + "\"", ctx);
    }
    std::string format = flags.get("output", "table");
    if (format != "table" && format != "name" && format != "json") {
      return usage_error(c, "unknown output format \"" + format + "\" (want table, name or json)",
                         ctx);
    }
    int code = kExitOk;
    auto target = pick_target(c, flags, code, ctx);
    if (!target) {
      return code;
    }
    std::vector<snapshots::Info> infos;
    if (target->access) {
      auto body = call(c, *target->access, "GET", "/admin/snapshots", ctx);
      if (!body) {
        return kExitFailure;
      }
      if (body->contains("items") && (*body)["items"].is_array()) {
        for (const auto& item : (*body)["items"]) {
          if (auto info = snapshots::info_from_json(item)) {
            infos.push_back(std::move(*info));
          }
        }
      }
    } else if (auto error = snapshots::list(target->dir->snapshots_dir(), infos)) {
      return command_failure(c, error.message, ctx);
    }
    if (format == "json") {
      ctx.out << snapshots::to_json(infos).dump(2) << "\n";
      return kExitOk;
    }
    if (format == "name") {
      for (const auto& info : infos) {
        ctx.out << info.name << "\n";
      }
      return kExitOk;
    }
    if (infos.empty()) {
      ctx.out << "No snapshots.\n";
      return kExitOk;
    }
    size_t width = 4;
    for (const auto& info : infos) {
      width = std::max(width, info.name.size());
    }
    auto row = [&](const std::string& name, const std::string& revision, const std::string& size,
                   const std::string& created) {
      std::string line = name + std::string(width + 3 - name.size(), ' ') + revision;
      line.resize(std::max(line.size() + 1, width + 14), ' ');
      line += size;
      line.resize(std::max(line.size() + 1, width + 26), ' ');
      ctx.out << line << created << "\n";
    };
    row("NAME", "REVISION", "SIZE", "CREATED");
    for (const auto& info : infos) {
      row(info.name, std::to_string(info.revision), human_size(info.size_bytes), info.created);
    }
    return kExitOk;
  };
  return c;
}

// delete -----------------------------------------------------------------------------------------

Command delete_command() {
  return named_command(
      "snapshot delete", "Delete a named snapshot",
      "Usage: kube-sandbox snapshot delete NAME [flags]\n\n"
      "Deletes the snapshot NAME. ",
      [](const Command& c, const Target& target, CommandContext& ctx) {
        if (target.access) {
          if (!call(c, *target.access, "DELETE", "/admin/snapshots/" + target.name, ctx)) {
            return kExitFailure;
          }
        } else {
          snapshots::Info info;
          if (auto error = snapshots::remove(target.dir->snapshots_dir(), target.name, info)) {
            return command_failure(c, error.message, ctx);
          }
        }
        ctx.out << "snapshot \"" << target.name << "\" deleted\n";
        return kExitOk;
      },
      "Offline, it only touches the snapshots folder, so a running server is fine.\n");
}

}  // namespace

Command named_snapshot_command() {
  Command c;
  c.name = "snapshot";
  c.summary = "Save and restore named snapshots (fast resets between tests)";
  c.synopsis =
      "Usage: kube-sandbox snapshot COMMAND [NAME] [flags]\n\n"
      "Named snapshots of the sandbox's store, to reset it between tests: save one after\n"
      "seeding, restore it after each test. " +
      mode_rule();
  c.subcommands = {save_command(), restore_command(), list_command(), delete_command()};
  return c;
}

}  // namespace sandbox
