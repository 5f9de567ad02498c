// `kube-sandbox kube-apiserver` (and the binary linked as kube-apiserver): serve as kube-apiserver
// runs alone, with kube-apiserver's flags, so that test harnesses which start a kube-apiserver from
// a directory of binaries (controller-runtime's envtest) start kube-sandbox instead. It is serve
// with a temporary data directory, the store in the etcd that --etcd-servers names, no console,
// no simulated nodes and none of kube-controller-manager's loops.
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "aggregator_flags.h"
#include "audit_flags.h"
#include "cli.h"
#include "etcd_servers_flags.h"
#include "service_account_flags.h"

namespace sandbox {
namespace {

// serve's flags that are kube-apiserver's too, under the same names and meanings.
const std::set<std::string>& shared_with_serve() {
  static const std::set<std::string> names = {
      "secure-port",
      "bind-address",
      "tls-cert-file",
      "tls-private-key-file",
      "client-ca-file",
      "service-cluster-ip-range",
      "runtime-config",
      "authorization-mode",
      "anonymous-auth",
      "allow-privileged",
      "enable-admission-plugins",
      "disable-admission-plugins",
      "token-auth-file",
      "request-timeout",
      "event-ttl",
      "storage-media-type",
      "log-level",  // -v, as kube-apiserver's
  };
  return names;
}

std::vector<FlagSpec> kube_apiserver_flags() {
  std::vector<FlagSpec> specs;
  const Command serve = serve_command();
  for (const FlagSpec& spec : serve.flags.specs()) {
    if (shared_with_serve().count(spec.name) != 0) {
      specs.push_back(spec);
    }
  }
  using Group = std::vector<FlagSpec> (*)();
  const Group groups[] = {service_account_flags, audit_flags, etcd_servers_flags, aggregator_flags};
  for (Group group : groups) {
    for (FlagSpec& spec : group()) {
      specs.push_back(std::move(spec));
    }
  }
  // kube-apiserver's defaults where serve's differ.
  for (FlagSpec& spec : specs) {
    if (spec.name == "allow-privileged") {
      spec.help = "allow containers with securityContext.privileged (default false)";
    } else if (spec.name == "authorization-mode") {
      spec.help =
          "authorizers in order, comma-separated: Node, RBAC, AlwaysAllow, AlwaysDeny "
          "(default AlwaysAllow)";
    } else if (spec.name == "storage-media-type") {
      spec.help =
          "how built-in kinds are stored: application/vnd.kubernetes.protobuf (default) "
          "or application/json; both are read";
    } else if (spec.name == "service-cluster-ip-range") {
      spec.help =
          "the IPv4 range Services' cluster IPs come from, /12 to /30; the kubernetes "
          "Service takes its first address (default 10.0.0.0/24)";
    }
  }
  specs.push_back({"cert-dir", "", true, "DIR",
                   "where the serving certificate is, as apiserver.crt and apiserver.key, when "
                   "--tls-cert-file is not given (default /var/run/kubernetes); without them, "
                   "kube-sandbox's own generated certificate"});
  specs.push_back({"advertise-address", "", true, "IP",
                   "accepted: kube-sandbox writes no Endpoints for the kubernetes Service"});
  return specs;
}

int run_kube_apiserver(const Command& command, const ParsedFlags& flags, CommandContext& ctx) {
  if (!flags.positional.empty()) {
    return usage_error(command, "unexpected argument \"" + flags.positional[0] + "\"", ctx);
  }
  if (!flags.has("etcd-servers")) {
    return usage_error(command, "--etcd-servers must be specified", ctx);
  }
  // The data directory holds only the sandbox's own CA and admin credential; the controllers
  // (--controllers with an empty list) and the nodes are kube-controller-manager's, the
  // scheduler's and kubelets', which kube-apiserver alone has not; nor has it a web console.
  std::vector<std::string> args = {"--ephemeral", "--headless", "--nodes=0",
                                   "--controllers=", "--web-listen=none"};
  for (const auto& [name, values] : flags.occurrences) {
    if (name == "cert-dir" || name == "advertise-address") {
      continue;
    }
    for (const std::string& value : values) {
      args.push_back("--" + name + "=" + value);
    }
  }
  // kube-apiserver's defaults where serve's differ.
  for (const auto& [name, fallback] :
       {std::pair{"allow-privileged", "false"}, std::pair{"authorization-mode", "AlwaysAllow"},
        std::pair{"service-cluster-ip-range", "10.0.0.0/24"},
        std::pair{"storage-media-type", "application/vnd.kubernetes.protobuf"}}) {
    if (flags.all(name).empty()) {
      args.push_back(std::string("--") + name + "=" + fallback);
    }
  }
  if (!flags.has("tls-cert-file")) {
    const std::filesystem::path dir = flags.get("cert-dir", "/var/run/kubernetes");
    std::error_code ec;
    if (std::filesystem::exists(dir / "apiserver.crt", ec) &&
        std::filesystem::exists(dir / "apiserver.key", ec)) {
      args.push_back("--tls-cert-file=" + (dir / "apiserver.crt").string());
      args.push_back("--tls-private-key-file=" + (dir / "apiserver.key").string());
    }
  }
  const Command serve = serve_command();
  auto parsed = serve.flags.parse(args);
  if (!parsed) {
    return usage_error(command, parsed.error(), ctx);
  }
  return run_serve(command, *parsed, ctx);
}

}  // namespace

Command kube_apiserver_command() {
  Command c;
  c.name = "kube-apiserver";
  c.summary = "Serve the API as kube-apiserver alone, store in an etcd (kube-apiserver's flags)";
  c.synopsis =
      "Usage: kube-sandbox kube-apiserver --etcd-servers URL [flags]\n\n"
      "Serves the Kubernetes API over HTTPS as kube-apiserver does when it runs alone: the store\n"
      "is the etcd that --etcd-servers names (kube-sandbox etcd, or etcd itself), and nothing of\n"
      "kube-controller-manager, kube-scheduler or kubelets runs: no controllers (a deleted\n"
      "namespace stays Terminating, a new one gets no default ServiceAccount), no nodes, no\n"
      "console. It takes kube-apiserver's flags, so that tools which start kube-apiserver (test\n"
      "harnesses such as controller-runtime's envtest) can start it instead; linked under the\n"
      "name kube-apiserver, the binary runs this command. The sandbox's own CA and admin\n"
      "credential live in a temporary directory, removed on exit.\n";
  c.flags = FlagSet(kube_apiserver_flags());
  c.run = [c](const ParsedFlags& flags, CommandContext& ctx) {
    return run_kube_apiserver(c, flags, ctx);
  };
  return c;
}

}  // namespace sandbox
