#include "web_console_endpoint.h"

#include <charconv>

#include "common/durable_file.h"
#include "common/read_file.h"

namespace sandbox {

FlagSpec web_listen_flag() {
  return {"web-listen", "", true, "ADDRESS:PORT",
          "serve the web console on this loopback address (127.0.0.1, [::1] or localhost) over "
          "HTTP; port 0 picks a free port, none turns it off (default " +
              std::string(kDefaultWebListen) + ")"};
}

common::Result<WebListen> web_listen(const ParsedFlags& flags) {
  WebListen listen;
  listen.chosen = flags.has("web-listen");
  std::string text = flags.get("web-listen", kDefaultWebListen);
  if (text == "none") {
    return listen;
  }
  auto fail = [&](const std::string& why) {
    return common::Result<WebListen>::failure("--web-listen " + text + ": " + why);
  };
  auto colon = text.rfind(':');
  if (colon == std::string::npos) {
    return fail("want ADDRESS:PORT, e.g. " + std::string(kDefaultWebListen));
  }
  std::string host = text.substr(0, colon);
  if (host == "[::1]") {
    host = "::1";
  }
  if (host != "127.0.0.1" && host != "::1" && host != "localhost") {
    return fail("the web console is served on loopback only (127.0.0.1, [::1] or localhost)");
  }
  const char* begin = text.data() + colon + 1;
  const char* end = text.data() + text.size();
  unsigned port = 0;
  auto [stop, error] = std::from_chars(begin, end, port);
  if (begin == end || error != std::errc() || stop != end || port > 65535) {
    return fail("the port must be a number from 0 to 65535");
  }
  listen.host = host == "localhost" ? "127.0.0.1" : host;
  listen.port = static_cast<uint16_t>(port);
  return listen;
}

std::string StartedWebConsole::url() const {
  if (!server) {
    return {};
  }
  return "http://" + (host == "::1" ? std::string("[::1]") : host) + ":" +
         std::to_string(server->port()) + "/";
}

std::string StartedWebConsole::login_url() const {
  return server ? url() + "login?token=" + login_token : std::string();
}

common::Result<StartedWebConsole> start_web_console(const WebListen& listen,
                                                    apiserver::http::Handler api,
                                                    const std::string& login_token,
                                                    const std::string& bearer_token) {
  StartedWebConsole started;
  if (!listen.host) {
    return started;
  }
  started.host = *listen.host;
  started.login_token = login_token;
  started.console = std::make_unique<apiserver::WebConsole>(
      apiserver::WebConsoleOptions{login_token, bearer_token}, std::move(api));
  apiserver::ServerOptions options;
  options.tls = false;
  options.bind_address = *listen.host;
  options.port = listen.port;
  options.network_threads = 1;
  options.worker_threads = 4;
  options.max_connections = 256;
  options.long_running = [](const apiserver::http::Request& request) {
    return request.query_value("watch") == "1" || request.query_value("watch") == "true";
  };
  auto* console = started.console.get();
  auto handler = [console](apiserver::http::Request& request) { return console->handle(request); };
  auto server = apiserver::Server::start(options, handler);
  if (!server && !listen.chosen) {
    std::string first_error = server.error();
    options.port = 0;
    server = apiserver::Server::start(options, handler);
    if (server) {
      started.warning = "the web console's default address is taken (" + first_error +
                        "); it is served on another port instead";
    }
  }
  if (!server) {
    return common::Result<StartedWebConsole>::failure("--web-listen: " + server.error());
  }
  started.server = std::move(*server);
  started.console->set_port(started.server->port());
  return started;
}

void record_web_console(const DataDir& dir, const std::string& url) {
  (void)common::write_file_durably(dir.web_console_file(), url + "\n", 0600);
}

void forget_web_console(const DataDir& dir) {
  std::error_code ec;
  std::filesystem::remove(dir.web_console_file(), ec);
}

common::Result<std::string> web_console_login_url(const DataDir& dir) {
  auto first_line = [](std::string text) {
    text.erase(text.find_last_not_of(" \t\r\n") + 1);
    return text;
  };
  auto url = common::read_file(dir.web_console_file());
  if (!url) {
    return common::Result<std::string>::failure(
        "no web console is running for " + dir.root().string() +
        ": start kube-sandbox serve there (its web console is on unless --web-listen none)");
  }
  auto token = common::read_file(dir.pki_dir() / apiserver::pki::kWebConsoleTokenFile);
  if (!token) {
    return common::Result<std::string>::failure(token.error().message);
  }
  return first_line(*url) + "login?token=" + first_line(*token);
}

}  // namespace sandbox
