// How `kube-sandbox store` reaches a data directory's store: opened in process with its lock
// taken, or, while a server holds the lock, through that server's etcd endpoint (the URL serve
// writes to DIR/etcd-endpoint, with the admin's certificate from DIR/pki for https).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "cli.h"
#include "data_dir.h"
#include "store/store.h"

namespace sandbox {

// The store of one command invocation, or the exit code that ends it.
struct OpenedStore {
  std::optional<DataDir> dir;
  std::unique_ptr<store::Store> store;
  int exit_code = kExitOk;
};

enum class OpenMode {
  MustExist,  // reads and maintenance: a missing store is an error, never created by a typo
  Create,     // writes: the first put creates the data directory and the store
};

// Resolves the data directory (--data-dir) and opens its store, or reaches it through the
// running server's endpoint. On failure the message is printed and exit_code set.
OpenedStore open_store(const Command& command, const ParsedFlags& flags, OpenMode mode,
                       CommandContext& ctx);

// Why a data directory's store cannot be opened while another process holds it (and no
// endpoint of a running server is recorded).
std::string locked_message(const DataDir& dir);

// Where serve records its etcd endpoint while it runs (removed when it stops).
void record_etcd_endpoint(const DataDir& dir, const std::string& url);
void forget_etcd_endpoint(const DataDir& dir);

}  // namespace sandbox
