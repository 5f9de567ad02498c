// `kube-sandbox serve`: the store, the PKI, the HTTPS API server and the kubeconfig, wired up and
// run until SIGINT or SIGTERM; then a graceful stop in reverse order.
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "aggregator_flags.h"
#include "apiserver/apiserver.h"
#include "apiserver/log.h"
#include "apiserver/pki.h"
#include "apiserver/server.h"
#include "apiserver/version.h"
#include "audit_flags.h"
#include "cli.h"
#include "cluster/cluster.h"
#include "cluster_flags.h"
#include "common/read_file.h"
#include "common/result.h"
#include "common/scratch_dir.h"
#include "console/client/rest_client.h"
#include "console/ui/console_app.h"
#include "data_dir.h"
#include "etcd_endpoint.h"
#include "etcd_servers_flags.h"
#include "fixtures.h"
#include "kubeconfig.h"
#include "service_account_flags.h"
#include "store/store.h"
#include "store_access.h"
#include "web_console_endpoint.h"

namespace sandbox {
namespace {

constexpr auto kShutdownGrace = std::chrono::seconds(10);

// The file named by `flag`, or an error naming both.
common::Result<std::string> read_flag_file(const std::filesystem::path& path,
                                           const std::string& flag) {
  auto text = common::read_file(path);
  if (!text) {
    return common::Result<std::string>::failure(flag + " " + path.string() + ": cannot be read");
  }
  return std::move(*text);
}

// Writes the --ready-file (a temporary file renamed into place); the error when it cannot.
std::optional<std::string> write_ready_file(const std::filesystem::path& path,
                                            const nlohmann::json& doc) {
  auto part = path;
  part += ".part";
  {
    std::ofstream out(part, std::ios::trunc);
    out << doc.dump(2) << "\n";
    if (!out.flush()) {
      return "--ready-file " + path.string() + ": cannot be written";
    }
  }
  std::error_code ec;
  std::filesystem::rename(part, path, ec);
  if (ec) {
    return "--ready-file " + path.string() + ": " + ec.message();
  }
  return std::nullopt;
}

std::string url_host(const std::string& bind_address) {
  if (bind_address == "0.0.0.0" || bind_address.empty()) {
    return "127.0.0.1";
  }
  if (bind_address == "::") {
    return "[::1]";
  }
  return bind_address.find(':') != std::string::npos ? "[" + bind_address + "]" : bind_address;
}

// Fixture loading through the API server's own request pipeline, as the admin.
fixtures::Transport in_process(apiserver::ApiServer& api, const std::string& admin_token) {
  return [&api, admin_token](const std::string& method, const std::string& target,
                             const std::string& content_type, const std::string& body) {
    apiserver::http::Request request;
    request.method = method;
    request.target = target;
    auto q = target.find('?');
    request.path = apiserver::http::percent_decode(target.substr(0, q), false);
    if (q != std::string::npos) {
      request.query = apiserver::http::parse_query(target.substr(q + 1));
    }
    request.headers["Authorization"] = "Bearer " + admin_token;
    request.headers["User-Agent"] = "kube-sandbox-fixtures";
    if (!content_type.empty()) {
      request.headers["Content-Type"] = content_type;
    }
    request.body = body;
    request.remote_address = "in-process";
    apiserver::http::Response response = api.handle(request);
    return fixtures::Reply{response.status, std::move(response.body)};
  };
}

// Every connection, watch and store file takes a descriptor; the usual soft limit (1024) is
// far below the hard one. Raised before the server starts, so that accept() runs out late.
void raise_open_files_limit() {
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) {
    return;
  }
  // Linux refuses an infinite descriptor limit; its usual ceiling (fs.nr_open) is 2^20.
  rlim_t wanted = limit.rlim_max == RLIM_INFINITY ? rlim_t{1} << 20 : limit.rlim_max;
  limit.rlim_cur = wanted;
  if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) {
    apiserver::log::warning("cannot raise the open files limit to " + std::to_string(wanted) +
                            ": " + std::strerror(errno));
  }
}

// --exit-with-parent: a SIGTERM (the graceful stop) when the parent process dies, and when the
// parent closes our stdin if stdin is a pipe or socket (a test harness that holds its end).
void watch_parent() {
  pid_t parent = getppid();
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) {
    kill(getpid(), SIGTERM);  // the parent died before the request was in place
  }
  struct stat st {};
  if (fstat(STDIN_FILENO, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) {
    std::thread([] {
      char buffer[256];
      while (true) {
        ssize_t n = read(STDIN_FILENO, buffer, sizeof buffer);
        if (n == 0 || (n < 0 && errno != EINTR)) {
          break;
        }
      }
      kill(getpid(), SIGTERM);
    }).detach();
  }
}

// Whether the environment names a display server; only then does serve try to open the console.
bool display_named() {
  for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && *value != '\0') {
      return true;
    }
  }
  return false;
}

// The signal that wakes the console's signal waiter when the window closes by itself; blocked in
// the main thread (which the waiter inherits), so it never ends the process.
constexpr int kWakeSignal = SIGUSR1;

enum class ConsoleEnd { WindowClosed, Signalled, NotOpened };

// Runs the desktop console on this (the main) thread as a plain client of the server, through the
// data directory's kubeconfig, while another thread waits for SIGINT or SIGTERM and closes the
// window when one comes. Returns how it ended; `signal_number` is set when Signalled.
ConsoleEnd run_serve_console(const DataDir& data, const sigset_t& signals, int& signal_number,
                             CommandContext& ctx) {
  auto access = console::client::load_kubeconfig(data.kubeconfig_file().string(), "");
  if (!access.ok()) {
    ctx.out << "kube-sandbox: running headless: the console cannot use the kubeconfig: "
            << access.error() << "\n"
            << std::flush;
    return ConsoleEnd::NotOpened;
  }
  sigset_t waited = signals;
  sigaddset(&waited, kWakeSignal);
  sigset_t wake;
  sigemptyset(&wake);
  sigaddset(&wake, kWakeSignal);
  pthread_sigmask(SIG_BLOCK, &wake, nullptr);

  console::ui::CloseRequest close;
  std::atomic<int> received{0};
  std::thread waiter([&waited, &received, &close] {
    int number = 0;
    sigwait(&waited, &number);
    if (number != kWakeSignal) {
      received.store(number);
      close.request();
    }
  });
  console::ui::RunOptions options;
  options.close_request = &close;
  options.settings_path = data.console_ini_file().string();
  std::ostringstream console_err;
  const int code = console::ui::run_console(*access, options, console_err);
  if (received.load() == 0) {
    pthread_kill(waiter.native_handle(), kWakeSignal);
  }
  waiter.join();
  signal_number = received.load();
  if (signal_number != 0) {
    return ConsoleEnd::Signalled;
  }
  if (code == console::ui::kCannotOpenWindow) {
    std::string reason = console_err.str();
    while (!reason.empty() && reason.back() == '\n') {
      reason.pop_back();
    }
    constexpr std::string_view kPrefix = "kube-sandbox console: ";
    if (reason.starts_with(kPrefix)) {
      reason.erase(0, kPrefix.size());
    }
    ctx.out << "kube-sandbox: running headless: " << reason << "\n" << std::flush;
    return ConsoleEnd::NotOpened;
  }
  ctx.err << console_err.str();
  return ConsoleEnd::WindowClosed;
}

}  // namespace

int run_serve(const Command& command, const ParsedFlags& flags, CommandContext& ctx) {
  if (!flags.positional.empty()) {
    return usage_error(command, "unexpected argument \"" + flags.positional[0] + "\"", ctx);
  }
  uint16_t port = 6443;
  if (flags.has("secure-port")) {
    std::string text = flags.get("secure-port");
    unsigned value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size() || value > 65535) {
      return usage_error(
          command, "--secure-port must be a port number (0-65535), got \"" + text + "\"", ctx);
    }
    port = static_cast<uint16_t>(value);
  }
  auto cluster_options = sandbox::cluster_options(flags);
  if (!cluster_options) {
    return usage_error(command, cluster_options.error(), ctx);
  }
  auto account_flags = sandbox::service_account_flags(flags);
  if (!account_flags) {
    return usage_error(command, account_flags.error(), ctx);
  }
  if (auto problem = sandbox::check_aggregator_flags(flags)) {
    return usage_error(command, *problem, ctx);
  }
  auto audit_options = sandbox::audit_options(flags);
  if (!audit_options) {
    return usage_error(command, audit_options.error(), ctx);
  }
  // Read and opened at start, as kube-apiserver does: a policy it refuses is a usage error.
  auto auditor = apiserver::start_audit(*audit_options);
  if (!auditor) {
    return usage_error(command, auditor.error(), ctx);
  }
  if (flags.has("tls-cert-file") != flags.has("tls-private-key-file")) {
    return usage_error(command, "--tls-cert-file and --tls-private-key-file go together", ctx);
  }
  auto runtime_config = apiserver::registry::RuntimeConfig::parse(flags.get("runtime-config"));
  if (!runtime_config) {
    return usage_error(command, runtime_config.error(), ctx);
  }
  std::chrono::milliseconds request_timeout{60000};
  if (flags.has("request-timeout")) {
    auto parsed = apiserver::http::parse_duration(flags.get("request-timeout"));
    if (!parsed || parsed->count() <= 0) {
      return usage_error(command,
                         "--request-timeout must be a positive duration such as 60s or 1m, got \"" +
                             flags.get("request-timeout") + "\"",
                         ctx);
    }
    request_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(*parsed);
  }
  std::chrono::seconds event_ttl = std::chrono::hours(1);
  if (flags.has("event-ttl")) {
    auto parsed = apiserver::http::parse_duration(flags.get("event-ttl"));
    if (!parsed || parsed->count() < 0) {
      return usage_error(command,
                         "--event-ttl must be a duration such as 1h or 30m, got \"" +
                             flags.get("event-ttl") + "\"",
                         ctx);
    }
    event_ttl = std::chrono::duration_cast<std::chrono::seconds>(*parsed);
  }
  if (flags.has("log-level")) {
    std::string text = flags.get("log-level");
    int level = -1;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), level);
    if (ec != std::errc() || ptr != text.data() + text.size() || level < 0 || level > 10) {
      return usage_error(command,
                         "-v/--log-level must be a number from 0 to 10, got \"" + text + "\"", ctx);
    }
    apiserver::log::set_verbosity(level);
  }
  apiserver::TokenMap file_tokens;
  if (flags.has("token-auth-file")) {
    auto text = read_flag_file(flags.get("token-auth-file"), "--token-auth-file");
    if (!text) {
      ctx.err << "kube-sandbox serve: " << text.error() << "\n";
      return kExitFailure;
    }
    auto parsed = apiserver::parse_token_auth_file(*text, flags.get("token-auth-file"));
    if (!parsed) {
      ctx.err << "kube-sandbox serve: " << parsed.error() << "\n";
      return kExitFailure;
    }
    for (const auto& warning : parsed->warnings) {
      apiserver::log::warning(warning);
    }
    file_tokens = std::move(parsed->tokens);
  }
  const std::string media_type = flags.get("storage-media-type", "application/json");
  if (auto problem = apiserver::ApiServer::check_storage_media_type(media_type)) {
    return usage_error(command, *problem, ctx);
  }
  const std::string service_cidr = flags.get("service-cluster-ip-range", "10.96.0.0/12");
  if (auto problem = apiserver::ApiServer::check_service_cluster_ip_range(service_cidr)) {
    return usage_error(command, *problem, ctx);
  }
  const std::string authorization_mode = flags.get("authorization-mode", "Node,RBAC");
  if (auto problem = apiserver::ApiServer::check_authorization_mode(authorization_mode)) {
    return usage_error(command, *problem, ctx);
  }
  const auto enable_plugins = split_commas(flags.get("enable-admission-plugins"));
  const auto disable_plugins = split_commas(flags.get("disable-admission-plugins"));
  if (auto problem =
          apiserver::ApiServer::check_admission_plugins(enable_plugins, disable_plugins)) {
    return usage_error(command, *problem, ctx);
  }
  auto etcd_listen = sandbox::etcd_listen(flags);
  if (!etcd_listen) {
    return usage_error(command, etcd_listen.error(), ctx);
  }
  auto web_listen = sandbox::web_listen(flags);
  if (!web_listen) {
    return usage_error(command, web_listen.error(), ctx);
  }
  auto etcd_servers = sandbox::etcd_servers_options(flags);
  if (!etcd_servers) {
    return usage_error(command, etcd_servers.error(), ctx);
  }
  if (*etcd_servers && !etcd_listen->chosen) {
    etcd_listen->url.reset();  // an etcd cluster already has its endpoints
  }
  bool ephemeral = flags.has("ephemeral");
  if (ephemeral && flags.has("data-dir")) {
    return usage_error(command, "--ephemeral keeps nothing: it takes no --data-dir", ctx);
  }

  raise_open_files_limit();

  // Signals are taken by sigwait below; block them before any thread starts.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  if (flags.has("exit-with-parent")) {
    watch_parent();
  }

  std::optional<common::ScratchDir> temp;  // --ephemeral's data directory, removed on exit
  std::optional<DataDir> data;
  if (ephemeral) {
    temp = common::ScratchDir::make("kube-sandbox");
    if (!temp) {
      ctx.err << "kube-sandbox serve: cannot create a temporary data directory\n";
      return kExitFailure;
    }
    data.emplace(temp->path());
  } else {
    auto resolved = resolve_data_dir(flags);
    if (!resolved) {
      ctx.err << "kube-sandbox serve: " << resolved.error() << "\n";
      return kExitFailure;
    }
    data = std::move(*resolved);
    if (std::string error = data->ensure_exists(); !error.empty()) {
      ctx.err << "kube-sandbox serve: " << error << "\n";
      return kExitFailure;
    }
    for (const auto& loose : data->loose_permissions()) {
      apiserver::log::warning(loose);
    }
  }

  auto started = std::chrono::steady_clock::now();
  // The store: the embedded one in the data directory, or an etcd cluster (--etcd-servers).
  std::unique_ptr<store::Store> db;
  if (*etcd_servers) {
    auto connected = etcdwire::connect(**etcd_servers);
    if (!connected.is_ok()) {
      ctx.err << "kube-sandbox serve: --etcd-servers: " << connected.status().message() << "\n";
      return kExitFailure;
    }
    db = std::move(connected).value();
  } else {
    store::Options store_options;
    store_options.dir = data->store_dir();
    store_options.durability = ephemeral ? store::Durability::Ephemeral : store::Durability::Sync;
    auto opened = store::Store::open(store_options);
    if (!opened.is_ok()) {
      ctx.err << "kube-sandbox serve: " << opened.status().message() << "\n";
      return kExitFailure;
    }
    db = std::move(opened).value();
  }

  auto pki = apiserver::pki::ensure_pki(data->pki_dir(), {});
  if (!pki) {
    ctx.err << "kube-sandbox serve: " << pki.error() << "\n";
    return kExitFailure;
  }
  // The store's etcd v3 API: etcdctl and etcd clients see the keys the API server writes.
  auto etcd = sandbox::start_etcd_endpoint(*db, *etcd_listen, *pki);
  if (!etcd) {
    ctx.err << "kube-sandbox serve: " << etcd.error() << "\n";
    return kExitFailure;
  }
  if (!etcd->warning.empty()) {
    apiserver::log::warning(etcd->warning);
  }
  if (etcd->server && !ephemeral) {
    record_etcd_endpoint(*data, etcd->server->url());  // `kube-sandbox store` finds it there
  }
  // Service-account tokens: the data directory's key pair unless files are named.
  auto account_options = sandbox::service_account_options(*account_flags, data->pki_dir());
  if (!account_options) {
    ctx.err << "kube-sandbox serve: " << account_options.error() << "\n";
    return kExitFailure;
  }
  apiserver::ServerOptions server_options;
  server_options.bind_address = flags.get("bind-address", "127.0.0.1");
  server_options.port = port;
  server_options.cert_pem = pki->serving_cert_pem;
  server_options.key_pem = pki->serving_key_pem;
  server_options.client_ca_pem = pki->ca_cert_pem;
  server_options.request_timeout = request_timeout;
  server_options.long_running = &apiserver::ApiServer::long_running;
  if (flags.has("tls-cert-file")) {
    auto pair = apiserver::pki::load_key_pair(flags.get("tls-cert-file"),
                                              flags.get("tls-private-key-file"));
    if (!pair) {
      ctx.err << "kube-sandbox serve: " << pair.error() << "\n";
      return kExitFailure;
    }
    server_options.cert_pem = pair->cert_pem;
    server_options.key_pem = pair->key_pem;
  }
  if (flags.has("client-ca-file")) {
    auto ca = read_flag_file(flags.get("client-ca-file"), "--client-ca-file");
    if (!ca) {
      ctx.err << "kube-sandbox serve: " << ca.error() << "\n";
      return kExitFailure;
    }
    // The sandbox's own CA stays trusted so that its admin credential keeps working.
    server_options.client_ca_pem = pki->ca_cert_pem + *ca;
  }

  auto aggregation = sandbox::aggregation_config(flags, *pki, server_options.client_ca_pem,
                                                 read_flag_file, split_commas);
  if (!aggregation) {
    return usage_error(command, aggregation.error(), ctx);
  }
  // Front proxies (another server's aggregator) authenticate with the requestheader CA.
  server_options.requestheader_ca_pem = aggregation->requestheader_client_ca_pem;

  apiserver::ApiServerConfig api_config;
  api_config.aggregation = std::move(*aggregation);
  api_config.runtime_config = *runtime_config;
  api_config.event_ttl = event_ttl;
  api_config.authorization_mode = authorization_mode;
  api_config.service_cluster_ip_range = service_cidr;
  api_config.storage_media_type = media_type;
  api_config.controllers = in_process_controllers(*cluster_options);
  api_config.enable_admission_plugins = enable_plugins;
  api_config.disable_admission_plugins = disable_plugins;
  const auto anonymous = flags.all("anonymous-auth");
  api_config.anonymous_auth = anonymous.empty() || anonymous.back() == "true";
  const auto privileged = flags.all("allow-privileged");
  api_config.allow_privileged = privileged.empty() || privileged.back() == "true";
  api_config.auditor = *auditor;
  api_config.tokens = std::move(file_tokens);
  api_config.service_accounts = std::move(*account_options);
  api_config.root_ca_pem = pki->ca_cert_pem;
  api_config.snapshots_dir = data->snapshots_dir();  // with --ephemeral, in the temporary dir
  if (*etcd_servers) {
    api_config.snapshots_refusal =
        "named snapshots need the embedded store: this server keeps its objects in the etcd "
        "cluster of --etcd-servers, whose API cannot replace every key at one revision; save the "
        "cluster with etcdctl snapshot save and restore it with etcd's own tools";
  }
  api_config.tokens[pki->admin_token] = {apiserver::pki::kAdminCommonName,
                                         {apiserver::pki::kAdminOrganization}};
  apiserver::ApiServer api(*db, api_config);
  // The scheduler and the controllers run in this process (from cluster.start() below): what
  // componentstatuses reports for them, instead of probing their healthz ports.
  std::atomic<bool> cluster_running{false};
  const bool any_controller = !cluster_options->controllers.empty();
  api.set_in_process_component("scheduler", [&cluster_running] { return cluster_running.load(); });
  api.set_in_process_component("controller-manager", [&cluster_running, any_controller] {
    return any_controller && cluster_running.load();
  });
  // Credentials are checked from the header: a refused request's body is never read.
  server_options.admit = [&api](const apiserver::http::Request& r) { return api.admit(r); };
  server_options.run_inline = [&api](const apiserver::http::Request& r) {
    return api.runs_inline(r);
  };
  auto listening = apiserver::Server::start(
      server_options, [&api](apiserver::http::Request& r) { return api.handle(r); });
  if (!listening) {
    ctx.err << "kube-sandbox serve: " << listening.error() << "\n";
    return kExitFailure;
  }
  std::unique_ptr<apiserver::Server> server = std::move(*listening);
  // /readyz stays unready until this is done.
  api.bootstrap(server->port(), url_host(server_options.bind_address));
  std::string url =
      "https://" + url_host(server_options.bind_address) + ":" + std::to_string(server->port());

  std::string kubeconfig =
      make_kubeconfig(url, pki->ca_cert_pem, pki->admin_cert_pem, pki->admin_key_pem);
  auto kubeconfig_error = write_kubeconfig(data->kubeconfig_file(), kubeconfig);
  if (!kubeconfig_error && flags.has("write-kubeconfig")) {
    kubeconfig_error = write_kubeconfig(flags.get("write-kubeconfig"), kubeconfig);
  }
  if (kubeconfig_error) {
    ctx.err << "kube-sandbox serve: " << *kubeconfig_error << "\n";
    return kExitFailure;
  }
  if (flags.has("merge-kubeconfig")) {
    const char* home = std::getenv("HOME");
    std::filesystem::path user_config =
        std::filesystem::path(home != nullptr ? home : ".") / ".kube" / "config";
    if (auto error = merge_kubeconfig(user_config, kubeconfig)) {
      ctx.err << "kube-sandbox serve: " << *error << "\n";
      return kExitFailure;
    }
  }

  if (flags.has("fixtures")) {
    // Loaded before readiness: a client that waits for /readyz (or the ready file) sees them.
    auto documents = fixtures::read(split_commas(flags.get("fixtures")));
    if (!documents) {
      ctx.err << "kube-sandbox serve: --fixtures " << documents.error() << "\n";
      return kExitFailure;
    }
    auto results = fixtures::load(*documents, in_process(api, pki->admin_token));
    for (const auto& result : results) {
      ctx.out << "kube-sandbox: fixture " << fixtures::report_line(result) << "\n";
    }
    if (fixtures::any_failed(results)) {
      ctx.err << "kube-sandbox serve: some fixtures did not load (see above)\n";
      return kExitFailure;
    }
  }
  // The controllers, the scheduler and the simulated nodes: API clients of the pipeline.
  add_certificate_signer(*cluster_options, *pki);
  cluster::Cluster cluster([&api](apiserver::http::Request& r) { return api.handle(r); },
                           *cluster_options);
  cluster.start();
  cluster_running = true;
  api.set_ready(true);
  // The web console: the page, and the API as the admin (the browser signs in with the
  // data directory's web console token).
  auto web = sandbox::start_web_console(
      *web_listen, [&api](apiserver::http::Request& r) { return api.handle(r); },
      pki->web_console_token, pki->admin_token);
  if (!web) {
    ctx.err << "kube-sandbox serve: " << web.error() << "\n";
    return kExitFailure;
  }
  if (!web->warning.empty()) {
    apiserver::log::warning(web->warning);
  }
  if (web->server && !ephemeral) {
    record_web_console(*data, web->url());  // `kube-sandbox console --web` finds it there
  }
  if (flags.has("ready-file")) {
    nlohmann::json ready = {{"url", url},
                            {"caFile", pki->ca_cert_file.string()},
                            {"kubeconfig", data->kubeconfig_file().string()}};
    if (etcd->server) {
      ready["etcd"] = etcd->server->url();
    }
    if (web->server) {
      ready["web"] = web->url();
    }
    if (auto error = write_ready_file(flags.get("ready-file"), ready)) {
      ctx.err << "kube-sandbox serve: " << *error << "\n";
      return kExitFailure;
    }
  }
  auto ready_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - started)
                      .count();
  ctx.out << "kube-sandbox: serving the Kubernetes " << apiserver::api_version_line() << " API at "
          << url << " (ready in " << ready_ms << " ms, store revision " << db->current_revision()
          << (ephemeral ? ", ephemeral" : "") << ")\n"
          << "kube-sandbox: export KUBECONFIG=" << data->kubeconfig_file().string() << "\n";
  if (web->server) {
    ctx.out << "kube-sandbox: web console: " << web->login_url() << "\n";
  }
  if (etcd->server) {
    ctx.out << "kube-sandbox: the store's etcd v3 API: " << etcdctl_hint(*etcd->server, *pki)
            << " get /registry --prefix --keys-only\n";
  }
  ctx.out << std::flush;

  int signal_number = 0;
  ConsoleEnd console_end = ConsoleEnd::NotOpened;
  if (!flags.has("headless") && display_named()) {
    console_end = run_serve_console(*data, signals, signal_number, ctx);
  } else if (!flags.has("headless")) {
    ctx.out << "kube-sandbox: running headless: no display (DISPLAY and WAYLAND_DISPLAY are "
               "unset); kube-sandbox console opens the console where there is one\n"
            << std::flush;
  }
  if (console_end == ConsoleEnd::WindowClosed) {
    ctx.out << "kube-sandbox: console closed, shutting down\n" << std::flush;
  } else {
    if (console_end == ConsoleEnd::NotOpened) {
      sigwait(&signals, &signal_number);
    }
    ctx.out << "kube-sandbox: " << (signal_number == SIGINT ? "interrupted" : "terminated")
            << ", shutting down\n"
            << std::flush;
  }
  if (web->server) {
    if (!ephemeral) {
      forget_web_console(*data);
    }
    web->server->stop(std::chrono::milliseconds(500));  // its watches end with the API's
  }
  cluster_running = false;
  cluster.stop();
  api.begin_shutdown();
  server->stop(kShutdownGrace);
  server.reset();
  if (etcd->server) {
    if (!ephemeral) {
      forget_etcd_endpoint(*data);
    }
    // Watch streams never end by themselves: a short grace for calls in flight, then they are
    // cancelled, as etcd's clients see when etcd stops.
    etcd->server->shutdown(std::chrono::seconds(1));
  }
  return kExitOk;  // then the API server, then the store: the reverse of their construction
}

Command serve_command() {
  Command c;
  c.name = "serve";
  c.summary = "Run the API server and the store (the default command)";
  c.synopsis =
      "Usage: kube-sandbox serve [flags]\n\n"
      "Serves the Kubernetes API over HTTPS from the embedded store until SIGINT or SIGTERM.\n"
      "On first start it creates a CA, a serving certificate and an admin credential in the\n"
      "data directory and writes a kubeconfig there (context \"kube-sandbox\").\n"
      "When a display is available (DISPLAY or WAYLAND_DISPLAY) and --headless is not given,\n"
      "it also opens the desktop console, a client of the server through that kubeconfig;\n"
      "closing the console's window stops serve gracefully, as SIGINT does.\n";
  std::vector<FlagSpec> specs = {
      data_dir_flag(),
      {"ephemeral", "", false, "", "keep nothing: a temporary data directory removed on exit"},
      {"secure-port", "", true, "PORT", "HTTPS port (default 6443; 0 picks a free port)"},
      {"bind-address", "", true, "ADDRESS", "address to listen on (default 127.0.0.1)"},
      {"tls-cert-file", "", true, "FILE", "serving certificate (PEM) instead of the generated one"},
      {"tls-private-key-file", "", true, "FILE", "the key of --tls-cert-file (PEM)"},
      {"client-ca-file", "", true, "FILE", "also trust client certificates signed by this CA"},
      {"ready-file", "", true, "FILE",
       "once ready, write {\"url\", \"caFile\", \"kubeconfig\", \"etcd\", \"web\"} as JSON here "
       "(atomically; etcd only while its endpoint runs)"},
      etcd_listen_flag(),
      web_listen_flag(),
      {"write-kubeconfig", "", true, "FILE", "also write the admin kubeconfig here"},
      {"merge-kubeconfig", "", false, "",
       "add or update the kube-sandbox context in ~/.kube/config"},
      {"service-cluster-ip-range", "", true, "CIDR",
       "the IPv4 range Services' cluster IPs come from, /12 to /30; the kubernetes Service takes "
       "its first address (default 10.96.0.0/12)"},
      {"storage-media-type", "", true, "TYPE",
       "how built-in kinds are stored: application/json (default; readable with etcdctl) or "
       "application/vnd.kubernetes.protobuf (kube-apiserver's default); both are read"},
      {"runtime-config", "", true, "LIST",
       "serve more group/versions, e.g. api/beta=true or storage.k8s.io/v1beta1=true"},
      {"authorization-mode", "", true, "MODES",
       "authorizers in order, comma-separated: Node, RBAC, AlwaysAllow, AlwaysDeny (default "
       "Node,RBAC; system:masters is always allowed)"},
      {"anonymous-auth", "", false, "",
       "requests without credentials are system:anonymous (default true; =false answers them "
       "401)"},
      {"allow-privileged", "", false, "",
       "allow containers with securityContext.privileged (default true, as kubeadm and kind set "
       "it; =false refuses them, kube-apiserver's default)"},
      {"enable-admission-plugins", "", true, "NAMES",
       "admission plugins to run besides the default-on ones, comma-separated (run in "
       "kube-apiserver's order whatever the order given)"},
      {"disable-admission-plugins", "", true, "NAMES",
       "admission plugins to turn off, comma-separated, default-on ones included"},
      {"token-auth-file", "", true, "FILE",
       "also accept the bearer tokens of this CSV file (token,user,uid,\"group1,group2\")"},
      {"request-timeout", "", true, "DURATION",
       "longest time a request may take before a 504 Timeout (default 60s; not for watches)"},
      {"event-ttl", "", true, "DURATION",
       "how long events are kept after their last update (default 1h, as kube-apiserver)"},
      {"headless", "", false, "", "never open the desktop console, even with a display"},
      {"exit-with-parent", "", false, "",
       "stop (gracefully) when the parent process exits or closes a piped stdin"},
      {"fixtures", "", true, "PATHS",
       "apply these YAML/JSON files or folders (comma-separated) before turning ready"},
      {"log-level", "v", true, "N",
       "log verbosity as kube-apiserver's -v: 0 start-up and errors, 2 controllers, 3 requests"},
  };
  for (FlagSpec& spec : service_account_flags()) {
    specs.push_back(std::move(spec));
  }
  for (FlagSpec& spec : audit_flags()) {
    specs.push_back(std::move(spec));
  }
  for (FlagSpec& spec : etcd_servers_flags()) {
    specs.push_back(std::move(spec));
  }
  for (FlagSpec& spec : aggregator_flags()) {
    specs.push_back(std::move(spec));
  }
  for (FlagSpec& spec : cluster_flags()) {
    specs.push_back(std::move(spec));
  }
  c.flags = FlagSet(std::move(specs));
  c.run = [c](const ParsedFlags& flags, CommandContext& ctx) { return run_serve(c, flags, ctx); };
  return c;
}

}  // namespace sandbox
