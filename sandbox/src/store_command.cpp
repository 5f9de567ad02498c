// `kube-sandbox store ...`: reads and changes the embedded store of a data directory,
// with etcdctl 3.4's output shapes so that what users learn there carries over.
//
// Every subcommand opens the store with the lock taken or, while a server runs on the data
// directory, reaches that server's store through its etcd endpoint (store_access.h).
#include <pthread.h>
#include <signal.h>

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <system_error>
#include <vector>

#include "cli.h"
#include "common/base64.h"
#include "data_dir.h"
#include "store/store.h"
#include "store_access.h"

namespace sandbox {
namespace {

using Json = nlohmann::ordered_json;  // etcdctl's field order, not alphabetical

// A whole-string decimal integer, optionally negative; anything else is refused.
std::optional<int64_t> parse_int(const std::string& text) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) {
    return std::nullopt;
  }
  return value;
}

// go-humanize's Bytes, which etcdctl prints DB SIZE with: SI units, one decimal below 10.
std::string human_bytes(int64_t bytes) {
  if (bytes < 10) {
    return std::to_string(bytes) + " B";
  }
  static constexpr const char* kUnits[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
  int exp = static_cast<int>(std::floor(std::log(static_cast<double>(bytes)) / std::log(1000.0)));
  double value = std::floor(static_cast<double>(bytes) / std::pow(1000.0, exp) * 10 + 0.5) / 10;
  char text[32];
  std::snprintf(text, sizeof text, value < 10 ? "%.1f %s" : "%.0f %s", value, kUnits[exp]);
  return text;
}

// The key range of get and del, as etcdctl builds it: KEY [RANGE_END], --prefix or --from-key.
// Returns false after printing a usage error.
bool key_range(const Command& command, const ParsedFlags& flags, std::string& key,
               std::string& range_end, int& exit_code, CommandContext& ctx) {
  const auto& args = flags.positional;
  bool prefix = flags.has("prefix");
  bool from_key = flags.has("from-key");
  std::string problem;
  if (args.empty()) {
    problem = "missing KEY";
  } else if (args.size() > 2) {
    problem = "too many arguments: want KEY [RANGE_END]";
  } else if (prefix && from_key) {
    problem = "--prefix and --from-key cannot be used together";
  } else if (args.size() == 2 && (prefix || from_key)) {
    problem = std::string("RANGE_END cannot be used with --") + (prefix ? "prefix" : "from-key");
  }
  if (!problem.empty()) {
    exit_code = usage_error(command, problem, ctx);
    return false;
  }
  key = args[0];
  range_end = args.size() == 2 ? args[1] : "";
  if (prefix || from_key) {
    // An empty key with --prefix or --from-key means every key, as in etcd's clientv3.
    range_end = prefix && !key.empty() ? store::prefix_range_end(key) : std::string(1, '\0');
    if (key.empty()) {
      key = std::string(1, '\0');
    }
  }
  return true;
}

// A non-negative integer flag; returns false after printing a usage error.
bool int_flag(const Command& command, const ParsedFlags& flags, const std::string& name,
              int64_t& value, int& exit_code, CommandContext& ctx) {
  if (!flags.has(name)) {
    return true;
  }
  auto parsed = parse_int(flags.get(name));
  if (!parsed || *parsed < 0) {
    exit_code = usage_error(
        command, "--" + name + " wants a non-negative integer, got \"" + flags.get(name) + "\"",
        ctx);
    return false;
  }
  value = *parsed;
  return true;
}

bool output_flag(const Command& command, const ParsedFlags& flags,
                 const std::vector<std::string>& formats, std::string& format, int& exit_code,
                 CommandContext& ctx) {
  format = flags.get("output", formats.front());
  for (const auto& f : formats) {
    if (f == format) {
      return true;
    }
  }
  std::string want;
  for (size_t i = 0; i < formats.size(); ++i) {
    want += (i == 0 ? "" : i + 1 == formats.size() ? " or " : ", ") + formats[i];
  }
  exit_code =
      usage_error(command, "unknown output format \"" + format + "\" (want " + want + ")", ctx);
  return false;
}

int no_positional(const Command& command, const ParsedFlags& flags, CommandContext& ctx) {
  return usage_error(command, "unexpected argument \"" + flags.positional[0] + "\"", ctx);
}

Json kv_json(const store::KeyValue& kv) {
  // etcdctl omits zero fields (protobuf's omitempty): an empty value, a zero lease.
  Json j;
  j["key"] = common::base64_encode(kv.key);
  j["create_revision"] = kv.create_revision;
  j["mod_revision"] = kv.mod_revision;
  j["version"] = kv.version;
  if (!kv.value.empty()) {
    j["value"] = common::base64_encode(kv.value);
  }
  if (kv.lease != 0) {
    j["lease"] = kv.lease;
  }
  return j;
}

Json header_json(const store::ResponseHeader& header) {
  return {{"revision", header.revision}};
}

FlagSpec output_flag_spec(const std::string& help) {
  return {"output", "o", true, "FORMAT", help};
}

// get ------------------------------------------------------------------------------------------

Command get_command() {
  Command c;
  c.name = "store get";
  c.summary = "Print a key or a range of keys";
  c.synopsis =
      "Usage: kube-sandbox store get KEY [RANGE_END] [flags]\n\n"
      "Prints the key KEY, the keys in [KEY, RANGE_END), or with --prefix every key that starts\n"
      "with KEY, as etcdctl get does: a key line then a value line per key (-o simple), or\n"
      "etcdctl's JSON with base64 keys and values (-o json).\n";
  c.flags = FlagSet({
      data_dir_flag(),
      {"prefix", "", false, "", "every key that starts with KEY"},
      {"from-key", "", false, "", "every key >= KEY (byte order)"},
      {"keys-only", "", false, "", "print the keys without their values"},
      {"count-only", "", false, "", "print only the number of matching keys"},
      {"limit", "", true, "N", "at most N keys (0 = no limit)"},
      {"rev", "", true, "N", "read at revision N (0 = the current revision)"},
      output_flag_spec("output format: simple (default) or json"),
  });
  c.run = [c](const ParsedFlags& flags, CommandContext& ctx) {
    int code = kExitOk;
    store::RangeRequest request;
    std::string format;
    if (!key_range(c, flags, request.key, request.range_end, code, ctx) ||
        !int_flag(c, flags, "limit", request.limit, code, ctx) ||
        !int_flag(c, flags, "rev", request.revision, code, ctx) ||
        !output_flag(c, flags, {"simple", "json"}, format, code, ctx)) {
      return code;
    }
    request.keys_only = flags.has("keys-only");
    request.count_only = flags.has("count-only");
    auto opened = open_store(c, flags, OpenMode::MustExist, ctx);
    if (!opened.store) {
      return opened.exit_code;
    }
    auto result = opened.store->range(request);
    if (!result.is_ok()) {
      return command_failure(c, result.status().message(), ctx);
    }
    const auto& response = result.value();
    if (format == "json") {
      Json doc;
      doc["header"] = header_json(response.header);
      if (!response.kvs.empty()) {
        Json kvs = Json::array();
        for (const auto& kv : response.kvs) {
          kvs.push_back(kv_json(kv));
        }
        doc["kvs"] = std::move(kvs);
      }
      if (response.more) {
        doc["more"] = true;
      }
      if (response.count != 0) {
        doc["count"] = response.count;
      }
      ctx.out << doc.dump() << "\n";
      return kExitOk;
    }
    if (request.count_only) {
      ctx.out << response.count << "\n";
      return kExitOk;
    }
    for (const auto& kv : response.kvs) {
      ctx.out << kv.key << "\n";
      if (!request.keys_only) {
        ctx.out << kv.value << "\n";
      }
    }
    return kExitOk;
  };
  return c;
}

// put ------------------------------------------------------------------------------------------

Command put_command() {
  Command c;
  c.name = "store put";
  c.summary = "Write a key";
  c.synopsis =
      "Usage: kube-sandbox store put KEY VALUE [flags]\n\n"
      "Writes VALUE to KEY and prints OK. Creates the store if the data directory has none.\n"
      "A VALUE that starts with '-' goes after `--`: put KEY -- -1\n";
  c.flags = FlagSet({data_dir_flag()});
  c.run = [c](const ParsedFlags& flags, CommandContext& ctx) {
    if (flags.positional.size() != 2) {
      return usage_error(
          c,
          flags.positional.size() < 2 ? "want KEY and VALUE" : "too many arguments: want KEY VALUE",
          ctx);
    }
    auto opened = open_store(c, flags, OpenMode::Create, ctx);
    if (!opened.store) {
      return opened.exit_code;
    }
    store::PutRequest request;
    request.key = flags.positional[0];
    request.value = flags.positional[1];
    auto result = opened.store->put(request);
    if (!result.is_ok()) {
      return command_failure(c, result.status().message(), ctx);
    }
    ctx.out << "OK\n";
    return kExitOk;
  };
  return c;
}

// del ------------------------------------------------------------------------------------------

Command del_command() {
  Command c;
  c.name = "store del";
  c.summary = "Delete a key or a range of keys";
  c.synopsis =
      "Usage: kube-sandbox store del KEY [RANGE_END] [flags]\n\n"
      "Deletes the key KEY, the keys in [KEY, RANGE_END), or with --prefix every key that\n"
      "starts with KEY, and prints how many were deleted (then, with --prev-kv, each deleted\n"
      "key and value), as etcdctl del does.\n";
  c.flags = FlagSet({
      data_dir_flag(),
      {"prefix", "", false, "", "every key that starts with KEY"},
      {"from-key", "", false, "", "every key >= KEY (byte order)"},
      {"prev-kv", "", false, "", "print the deleted keys and values"},
  });
  c.run = [c](const ParsedFlags& flags, CommandContext& ctx) {
    int code = kExitOk;
    store::DeleteRangeRequest request;
    if (!key_range(c, flags, request.key, request.range_end, code, ctx)) {
      return code;
    }
    request.prev_kv = flags.has("prev-kv");
    auto opened = open_store(c, flags, OpenMode::MustExist, ctx);
    if (!opened.store) {
      return opened.exit_code;
    }
    auto result = opened.store->delete_range(request);
    if (!result.is_ok()) {
      return command_failure(c, result.status().message(), ctx);
    }
    ctx.out << result->deleted << "\n";
    for (const auto& kv : result->prev_kvs) {
      ctx.out << kv.key << "\n" << kv.value << "\n";
    }
    return kExitOk;
  };
  return c;
}

// compact --------------------------------------------------------------------------------------

Command compact_command() {
  Command c;
  c.name = "store compact";
  c.summary = "Drop the history before a revision";
  c.synopsis =
      "Usage: kube-sandbox store compact REVISION [flags]\n\n"
      "Discards every key version older than REVISION; reads and watches below it fail with\n"
      "\"required revision has been compacted\" afterwards.\n";
  c.flags = FlagSet({
      data_dir_flag(),
      {"physical", "", false, "", "return once the history is removed from the database"},
  });
  c.run = [c](const ParsedFlags& flags, CommandContext& ctx) {
    if (flags.positional.size() != 1) {
      return usage_error(c, flags.positional.empty() ? "missing REVISION" : "too many arguments",
                         ctx);
    }
    auto revision = parse_int(flags.positional[0]);
    if (!revision || *revision <= 0) {
      return usage_error(
          c, "REVISION must be a positive integer, got \"" + flags.positional[0] + "\"", ctx);
    }
    auto opened = open_store(c, flags, OpenMode::MustExist, ctx);
    if (!opened.store) {
      return opened.exit_code;
    }
    store::CompactionRequest request;
    request.revision = *revision;
    request.physical = flags.has("physical");
    auto result = opened.store->compact(request);
    if (!result.is_ok()) {
      return command_failure(c, result.status().message(), ctx);
    }
    ctx.out << "compacted revision " << *revision << "\n";
    return kExitOk;
  };
  return c;
}

// snapshot -------------------------------------------------------------------------------------

Command snapshot_save_command() {
  Command c;
  c.name = "store snapshot save";
  c.summary = "Write a consistent copy of the store to a file";
  c.synopsis =
      "Usage: kube-sandbox store snapshot save FILE [flags]\n\n"
      "Writes a consistent copy of the store's database to FILE.\n";
  c.flags = FlagSet({data_dir_flag()});
  c.run = [c](const ParsedFlags& flags, CommandContext& ctx) {
    if (flags.positional.size() != 1) {
      return usage_error(c, flags.positional.empty() ? "missing FILE" : "too many arguments", ctx);
    }
    const std::string& file = flags.positional[0];
    auto opened = open_store(c, flags, OpenMode::MustExist, ctx);
    if (!opened.store) {
      return opened.exit_code;
    }
    if (auto status = opened.store->snapshot(file); !status.is_ok()) {
      return command_failure(c, status.message(), ctx);
    }
    ctx.out << "Snapshot saved at " << file << "\n";
    return kExitOk;
  };
  return c;
}

Command snapshot_restore_command() {
  Command c;
  c.name = "store snapshot restore";
  c.summary = "Replace the store with a snapshot file";
  c.synopsis =
      "Usage: kube-sandbox store snapshot restore FILE [flags]\n\n"
      "Replaces the data directory's store with the snapshot FILE (made by `snapshot save`);\n"
      "the store then starts at the snapshot's revision. Refused while a server holds the\n"
      "data directory.\n";
  c.flags = FlagSet({data_dir_flag()});
  c.run = [c](const ParsedFlags& flags, CommandContext& ctx) {
    if (flags.positional.size() != 1) {
      return usage_error(c, flags.positional.empty() ? "missing FILE" : "too many arguments", ctx);
    }
    const std::string& file = flags.positional[0];
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec)) {
      return command_failure(c, "no snapshot file " + file, ctx);
    }
    auto dir = resolve_data_dir(flags);
    if (!dir) {
      return flags.has("data-dir") ? usage_error(c, dir.error(), ctx)
                                   : command_failure(c, dir.error(), ctx);
    }
    if (std::string e = dir->ensure_exists(); !e.empty()) {
      return command_failure(c, e, ctx);
    }
    // restore_snapshot takes the store's lock itself, so a running server makes it fail.
    if (auto status = store::restore_snapshot(file, dir->store_dir()); !status.is_ok()) {
      return command_failure(
          c, status.code() == store::Code::Locked ? locked_message(*dir) : status.message(), ctx);
    }
    auto reopened = open_store(c, flags, OpenMode::MustExist, ctx);
    if (!reopened.store) {
      return reopened.exit_code;
    }
    ctx.out << "Snapshot restored from " << file << " into " << dir->root().string()
            << " at revision " << reopened.store->current_revision() << "\n";
    return kExitOk;
  };
  return c;
}

Command snapshot_command() {
  Command c;
  c.name = "store snapshot";
  c.summary = "Save the store to a file, or restore it from one";
  c.synopsis =
      "Usage: kube-sandbox store snapshot COMMAND FILE [flags]\n\n"
      "Saves the store to a snapshot file, or replaces it with one.\n";
  c.subcommands = {snapshot_save_command(), snapshot_restore_command()};
  return c;
}

// status ---------------------------------------------------------------------------------------

std::string table(const std::vector<std::string>& header, const std::vector<std::string>& row) {
  std::vector<size_t> widths;
  for (size_t i = 0; i < header.size(); ++i) {
    widths.push_back(std::max(header[i].size(), row[i].size()));
  }
  std::string rule = "+";
  for (size_t w : widths) {
    rule += std::string(w + 2, '-') + "+";
  }
  // Headers centred, values right-aligned, as etcdctl's tables are.
  std::string head = "|";
  std::string values = "|";
  for (size_t i = 0; i < widths.size(); ++i) {
    size_t pad = widths[i] - header[i].size();
    head += " " + std::string(pad / 2, ' ') + header[i] + std::string(pad - pad / 2, ' ') + " |";
    values += " " + std::string(widths[i] - row[i].size(), ' ') + row[i] + " |";
  }
  return rule + "\n" + head + "\n" + rule + "\n" + values + "\n" + rule + "\n";
}

Command status_command() {
  Command c;
  c.name = "store status";
  c.summary = "Print the store's size, revision, compacted revision and key count";
  c.synopsis =
      "Usage: kube-sandbox store status [flags]\n\n"
      "Prints the store's database size (and the part in use), current revision, compacted\n"
      "revision and number of live keys, like etcdctl endpoint status.\n";
  c.flags = FlagSet({
      data_dir_flag(),
      output_flag_spec("output format: simple (default), table or json"),
  });
  c.run = [c](const ParsedFlags& flags, CommandContext& ctx) {
    if (!flags.positional.empty()) {
      return no_positional(c, flags, ctx);
    }
    int code = kExitOk;
    std::string format;
    if (!output_flag(c, flags, {"simple", "table", "json"}, format, code, ctx)) {
      return code;
    }
    auto opened = open_store(c, flags, OpenMode::MustExist, ctx);
    if (!opened.store) {
      return opened.exit_code;
    }
    auto result = opened.store->status();
    if (!result.is_ok()) {
      return command_failure(c, result.status().message(), ctx);
    }
    const auto& s = result.value();
    const std::string dir = opened.dir->root().string();
    if (format == "json") {
      Json status;
      status["header"] = header_json(s.header);
      status["dbSize"] = s.db_size;
      status["dbSizeInUse"] = s.db_size_in_use;
      status["compactRevision"] = s.compact_revision;
      status["keyCount"] = s.key_count;
      Json entry;
      entry["Endpoint"] = dir;
      entry["Status"] = std::move(status);
      ctx.out << Json::array({std::move(entry)}).dump() << "\n";
      return kExitOk;
    }
    std::vector<std::string> row = {dir,
                                    human_bytes(s.db_size),
                                    human_bytes(s.db_size_in_use),
                                    std::to_string(s.header.revision),
                                    std::to_string(s.compact_revision),
                                    std::to_string(s.key_count)};
    if (format == "table") {
      ctx.out << table({"DATA DIR", "DB SIZE", "DB SIZE IN USE", "REVISION", "COMPACTED", "KEYS"},
                       row);
      return kExitOk;
    }
    for (size_t i = 0; i < row.size(); ++i) {
      ctx.out << (i == 0 ? "" : ", ") << row[i];
    }
    ctx.out << "\n";
    return kExitOk;
  };
  return c;
}

// defrag ---------------------------------------------------------------------------------------

Command defrag_command() {
  Command c;
  c.name = "store defrag";
  c.summary = "Rewrite the database without its free pages";
  c.synopsis =
      "Usage: kube-sandbox store defrag [flags]\n\n"
      "Rewrites the store's database without free pages, returning the space that\n"
      "compaction freed to the file system.\n";
  c.flags = FlagSet({data_dir_flag()});
  c.run = [c](const ParsedFlags& flags, CommandContext& ctx) {
    if (!flags.positional.empty()) {
      return no_positional(c, flags, ctx);
    }
    auto opened = open_store(c, flags, OpenMode::MustExist, ctx);
    if (!opened.store) {
      return opened.exit_code;
    }
    if (auto status = opened.store->defragment(); !status.is_ok()) {
      return command_failure(c, status.message(), ctx);
    }
    ctx.out << "Finished defragmenting the store in " << opened.dir->root().string() << "\n";
    return kExitOk;
  };
  return c;
}

}  // namespace

// watch ----------------------------------------------------------------------------------------

// Prints one key-value as etcdctl's simple format does: the key, then the value, a line each.
void print_kv(const store::KeyValue& kv, CommandContext& ctx) {
  ctx.out << kv.key << "\n" << kv.value << "\n";
}

Command watch_command() {
  Command c;
  c.name = "store watch";
  c.summary = "Print the changes to keys as they happen, like etcdctl watch";
  c.synopsis =
      "Usage: kube-sandbox store watch KEY [RANGE_END] [flags]\n\n"
      "Prints each change to the keys (PUT or DELETE, the key, the value; with --prev-kv the\n"
      "value before it too), from now or from --rev, until interrupted. While a server runs on\n"
      "the data directory the changes are its writes, live: run a kubectl command and watch\n"
      "its keys change.\n";
  c.flags = FlagSet({
      data_dir_flag(),
      {"prefix", "", false, "", "watch every key that starts with KEY"},
      {"from-key", "", false, "", "watch every key from KEY on"},
      {"rev", "", true, "REVISION", "replay the changes from this revision on first"},
      {"prev-kv", "", false, "", "print each key's previous value before the new one"},
  });
  c.run = [c](const ParsedFlags& flags, CommandContext& ctx) {
    int code = kExitOk;
    store::WatchRequest request;
    if (!key_range(c, flags, request.key, request.range_end, code, ctx) ||
        !int_flag(c, flags, "rev", request.start_revision, code, ctx)) {
      return code;
    }
    request.prev_kv = flags.has("prev-kv");
    // Interrupting ends the watch (exit 0), as it ends etcdctl's.
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);
    auto opened = open_store(c, flags, OpenMode::MustExist, ctx);
    if (!opened.store) {
      return opened.exit_code;
    }
    auto watcher = opened.store->watch(request);
    const timespec no_wait{0, 0};
    while (sigtimedwait(&signals, nullptr, &no_wait) < 0) {
      store::WatchResponse response;
      if (!watcher->next(response, std::chrono::milliseconds(200))) {
        if (watcher->finished()) {
          return command_failure(c, "the watch ended", ctx);
        }
        continue;
      }
      for (const auto& event : response.events) {
        ctx.out << (event.type == store::Event::Type::Put ? "PUT" : "DELETE") << "\n";
        if (request.prev_kv && event.prev_kv) {
          print_kv(*event.prev_kv, ctx);
        }
        print_kv(event.kv, ctx);
      }
      ctx.out << std::flush;
      if (response.canceled) {
        std::string reason = response.compact_revision != 0
                                 ? store::default_message(store::Code::Compacted)
                                 : response.cancel_reason;
        return command_failure(c, "watch was canceled (" + reason + ")", ctx);
      }
    }
    watcher->cancel();
    return kExitOk;
  };
  return c;
}

Command store_command() {
  Command c;
  c.name = "store";
  c.summary = "Read, change and watch the store (get, put, del, watch, compact, ...)";
  c.synopsis =
      "Usage: kube-sandbox store COMMAND [ARGS] [flags]\n\n"
      "Reads and changes the embedded store of a data directory, with etcdctl's arguments and\n"
      "output. While a server runs on the data directory, the commands reach its store through\n"
      "its etcd endpoint (serve --etcd-listen); snapshot restore needs the server stopped.\n";
  c.subcommands = {get_command(),   put_command(),      del_command(),    compact_command(),
                   watch_command(), snapshot_command(), status_command(), defrag_command()};
  return c;
}

}  // namespace sandbox
