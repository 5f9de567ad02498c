// The web console of `serve` (--web-listen): where it listens (loopback only, plain HTTP), its
// login URL, and what serve prints and writes about it.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "apiserver/http.h"
#include "apiserver/pki.h"
#include "apiserver/server.h"
#include "apiserver/web_console.h"
#include "common/result.h"
#include "data_dir.h"
#include "flags.h"

namespace sandbox {

inline constexpr const char* kDefaultWebListen = "127.0.0.1:6480";

// serve's --web-listen flag.
FlagSpec web_listen_flag();

// What --web-listen asks for: nothing ("none"), or a loopback address and port; `chosen` tells
// an address given on the command line from the default.
struct WebListen {
  std::optional<std::string> host;  // 127.0.0.1, ::1 or localhost (served on 127.0.0.1)
  uint16_t port = 0;
  bool chosen = false;
};
common::Result<WebListen> web_listen(const ParsedFlags& flags);

// Starts the web console's listener: the page, and the API through `api` as the user of
// `bearer_token`. When the default port is taken another free one is used and `warning` says
// so; an address given on the command line must work, else the error.
struct StartedWebConsole {
  std::unique_ptr<apiserver::WebConsole> console;
  std::unique_ptr<apiserver::Server> server;
  std::string warning;
  std::string host;               // the address it listens on
  std::string login_token;        // what /login takes
  std::string url() const;        // http://127.0.0.1:PORT/ or http://[::1]:PORT/ (empty when off)
  std::string login_url() const;  // url() + login?token=... (empty when off)
};
common::Result<StartedWebConsole> start_web_console(const WebListen& listen,
                                                    apiserver::http::Handler api,
                                                    const std::string& login_token,
                                                    const std::string& bearer_token);

// While serve runs, the data directory names its web console's address (web-console), so that
// `kube-sandbox console --web` finds it.
void record_web_console(const DataDir& dir, const std::string& url);
void forget_web_console(const DataDir& dir);

// The login URL of the web console serving `dir`'s sandbox (its recorded address and the
// pki/web-console.token), or why there is none.
common::Result<std::string> web_console_login_url(const DataDir& dir);

}  // namespace sandbox
