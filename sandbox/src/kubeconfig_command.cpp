// `kube-sandbox kubeconfig`: prints the admin kubeconfig that serve wrote in the data directory,
// or, with --user, writes a kubeconfig for another user: a fresh key and a client certificate
// signed by the sandbox's CA (CN the user, O each group), for the same server.
#include <fstream>
#include <ostream>
#include <sstream>

#include "apiserver/certificate_authority.h"
#include "cli.h"
#include "console/client/rest_client.h"
#include "data_dir.h"
#include "kubeconfig.h"

namespace sandbox {
namespace {

// How long the certificate of a --user kubeconfig is valid: kube-controller-manager's default
// --cluster-signing-duration.
constexpr std::chrono::hours kUserCertificateLifetime{24 * 365};

// The kubeconfig for `user` in `groups`, for the server of the admin kubeconfig in `data`.
common::Result<std::string> user_kubeconfig(const DataDir& data, const std::string& user,
                                            const std::vector<std::string>& groups) {
  auto admin = console::client::load_kubeconfig(data.kubeconfig_file().string(), "");
  if (!admin) {
    return common::Result<std::string>::failure(
        "no kubeconfig in " + data.root().string() +
        " yet: start the sandbox first (kube-sandbox serve): " + admin.error());
  }
  auto ca = apiserver::pki::load_key_pair(data.pki_dir() / "ca.crt", data.pki_dir() / "ca.key");
  if (!ca) {
    return common::Result<std::string>::failure(ca.error());
  }
  auto pair = apiserver::pki::issue_client_certificate(ca->cert_pem, ca->key_pem, user, groups,
                                                       kUserCertificateLifetime);
  if (!pair) {
    return common::Result<std::string>::failure(pair.error());
  }
  return make_kubeconfig(admin->server, ca->cert_pem, pair->cert_pem, pair->key_pem);
}

}  // namespace

Command kubeconfig_command() {
  Command c;
  c.name = "kubeconfig";
  c.summary = "Print the sandbox's admin kubeconfig, or make one for another user";
  c.synopsis =
      "Usage: kube-sandbox kubeconfig [--data-dir DIR]\n"
      "       kube-sandbox kubeconfig --user NAME [--group GROUP]... [--output FILE] "
      "[--data-dir DIR]\n\n"
      "Prints the admin kubeconfig (context \"kube-sandbox\") that `kube-sandbox serve` wrote in\n"
      "the data directory. Use it with: kube-sandbox kubeconfig > sandbox.kubeconfig\n\n"
      "With --user, makes a kubeconfig for that user instead: a new private key and a client\n"
      "certificate signed by the sandbox's CA for one year, with the user as its subject's CN and\n"
      "each --group as an O, as a CertificateSigningRequest approved for the\n"
      "kubernetes.io/kube-apiserver-client signer would give. The API server then knows the\n"
      "caller as that user, in those groups and system:authenticated, and RBAC decides what it\n"
      "may do:\n"
      "  kube-sandbox kubeconfig --user alice --group devs --output alice.kubeconfig\n"
      "  kubectl --kubeconfig alice.kubeconfig auth whoami\n";
  c.flags = FlagSet({data_dir_flag(),
                     {"user", "", true, "NAME", "make a kubeconfig for this user (the CN)"},
                     {"group", "", true, "GROUP", "a group of that user (an O); repeatable"},
                     {"output", "o", true, "FILE",
                      "write the kubeconfig to FILE (mode 0600) instead of stdout"}});
  c.run = [c](const ParsedFlags& flags, CommandContext& ctx) {
    if (!flags.positional.empty()) {
      return usage_error(c, "unexpected argument \"" + flags.positional[0] + "\"", ctx);
    }
    const bool for_user = flags.has("user");
    if (for_user && flags.get("user").empty()) {
      return usage_error(c, "--user must not be empty", ctx);
    }
    if (!for_user && (flags.has("group") || flags.has("output"))) {
      return usage_error(c, "--group and --output need --user", ctx);
    }
    auto data = resolve_data_dir(flags);
    if (!data) {
      ctx.err << "kube-sandbox kubeconfig: " << data.error() << "\n";
      return kExitFailure;
    }
    if (!for_user) {
      std::ifstream in(data->kubeconfig_file(), std::ios::binary);
      if (!in) {
        ctx.err << "kube-sandbox kubeconfig: no kubeconfig in " << data->root().string()
                << " yet: start the sandbox first (kube-sandbox serve)\n";
        return kExitFailure;
      }
      ctx.out << in.rdbuf();
      return kExitOk;
    }
    auto text = user_kubeconfig(*data, flags.get("user"), flags.all("group"));
    if (!text) {
      ctx.err << "kube-sandbox kubeconfig: " << text.error() << "\n";
      return kExitFailure;
    }
    if (!flags.has("output")) {
      ctx.out << *text;
      return kExitOk;
    }
    if (auto error = write_kubeconfig(flags.get("output"), *text)) {
      ctx.err << "kube-sandbox kubeconfig: " << *error << "\n";
      return kExitFailure;
    }
    return kExitOk;
  };
  return c;
}

}  // namespace sandbox
