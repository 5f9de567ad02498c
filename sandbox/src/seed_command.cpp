// `kube-sandbox seed`: fixture files applied to a running cluster through its REST API, with the
// credentials of a kubeconfig context (any cluster, not only a sandbox).
#include <nlohmann/json.hpp>
#include <ostream>

#include "cli.h"
#include "console/client/rest_client.h"
#include "fixtures.h"

namespace sandbox {

Command seed_command() {
  Command c;
  c.name = "seed";
  c.summary = "Load fixture files into a running sandbox (or any cluster)";
  c.synopsis =
      "Usage: kube-sandbox seed PATH... [--kubeconfig FILE] [--context NAME]\n\n"
      "Applies the YAML/JSON documents of the files and folders given (CRDs first, then\n"
      "Namespaces, then the rest; one server-side apply per document) and reports each object\n"
      "as created, configured, unchanged or failed with its file:line. Exits 1 when any\n"
      "document failed; the others are applied all the same.\n";
  c.flags = FlagSet({
      {"kubeconfig", "", true, "FILE", "kubeconfig to use (default $KUBECONFIG, ~/.kube/config)"},
      {"context", "", true, "NAME", "kubeconfig context (default its current-context)"},
  });
  c.run = [c](const ParsedFlags& flags, CommandContext& ctx) {
    if (flags.positional.empty()) {
      return usage_error(c, "no fixture files or folders given", ctx);
    }
    std::string path = flags.get("kubeconfig", console::client::default_kubeconfig_path());
    auto access = console::client::load_kubeconfig(path, flags.get("context"));
    if (!access.ok()) {
      ctx.err << "kube-sandbox seed: " << access.error() << "\n";
      return kExitFailure;
    }
    auto documents = fixtures::read(flags.positional);
    if (!documents) {
      ctx.err << "kube-sandbox seed: " << documents.error() << "\n";
      return kExitFailure;
    }
    console::client::RestClient client(*access, {.user_agent = "kube-sandbox-seed"});
    auto send = [&](const std::string& method, const std::string& target,
                    const std::string& content_type, const std::string& body) {
      auto response = client.request(method, target, content_type, body);
      if (!response.ok()) {
        // A Status-shaped body, so the report carries the transport error as the reason.
        return fixtures::Reply{0, nlohmann::json{{"message", response.error()}}.dump()};
      }
      return fixtures::Reply{response->status, std::move(response->body)};
    };
    auto results = fixtures::load(*documents, send);
    for (const auto& result : results) {
      ctx.out << fixtures::report_line(result) << "\n";
    }
    return fixtures::any_failed(results) ? kExitFailure : kExitOk;
  };
  return c;
}

}  // namespace sandbox
