// certificates.k8s.io: CertificateSigningRequests and ClusterTrustBundles; printers.
#include "registry/kinds/kinds.h"

#include <string>
#include <vector>

#include "registry/go_text.h"
#include "registry/print_cells.h"
#include "registry/table.h"

namespace apiserver::registry::kinds {

namespace {

namespace print {
using namespace cells;

json print_csr(const json& obj, const Context& c) {
  const json& spec = at(obj, "spec");
  bool approved = false;
  bool denied = false;
  bool failed = false;
  for (const auto& cond : arr(at(obj, "status", "conditions"))) {
    const std::string type = str(at(cond, "type"));
    approved = approved || type == "Approved";
    denied = denied || type == "Denied";
    failed = failed || type == "Failed";
  }
  std::string state = denied ? "Denied" : approved ? "Approved" : "Pending";
  if (failed) {
    state += ",Failed";
  }
  if (!str(at(obj, "status", "certificate")).empty()) {
    state += ",Issued";
  }
  const std::string signer = str(at(spec, "signerName"));
  std::string requested = "<none>";
  if (present(at(spec, "expirationSeconds"))) {
    requested = human_duration(std::chrono::seconds(integer(at(spec, "expirationSeconds"))));
  }
  return json::array({name_of(obj), age(obj, c), signer.empty() ? "<none>" : signer,
                      str(at(spec, "username")), requested, state});
}

json print_cluster_trust_bundle(const json& obj, const Context&) {
  const std::string signer = str(at(obj, "spec", "signerName"));
  return json::array({name_of(obj), signer.empty() ? "<none>" : signer});
}

}  // namespace print

}  // namespace

void add_certificates(Strategies& s) {
  s.push_back({.group = "certificates.k8s.io",
               .kind = "CertificateSigningRequest",
               .print = print::print_csr});
  s.push_back({.group = "certificates.k8s.io",
               .kind = "ClusterTrustBundle",
               .print = print::print_cluster_trust_bundle});
}

}  // namespace apiserver::registry::kinds
