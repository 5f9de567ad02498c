#include "endpoints/certificate_admission.h"

#include <string>
#include <vector>

#include "common/base64.h"
#include "common/go_quote.h"
#include "errors/status.h"
#include "registry/certificate_request.h"
#include "registry/json_access.h"

namespace apiserver::endpoints {
namespace {

using nlohmann::json;

constexpr const char* kGroup = "certificates.k8s.io";

// admission.NewForbidden: `<resource>.<group> "<name>" is forbidden: <why>`.
errors::Status forbidden(const std::string& name, const std::string& why) {
  return errors::failure(403, "Forbidden",
                         "certificatesigningrequests.certificates.k8s.io " +
                             common::go_quote(name) + " is forbidden: " + why,
                         errors::object_details(name, kGroup, "certificatesigningrequests"));
}

// The groups the request in spec.request names (none when it does not parse: validation refuses
// it then).
std::vector<std::string> requested_organizations(const json& csr) {
  auto pem = common::base64_decode(registry::string_at(csr, {"spec", "request"}));
  return pem ? registry::certificate_request_organizations(*pem) : std::vector<std::string>();
}

// certauthorization.IsAuthorizedForSignerName: `verb` on signers named as the signer, or as its
// domain with "/*".
bool allowed_for_signer(const authorization::Authorizer& authorizer,
                        const authorization::User& user, const std::string& verb,
                        const std::string& signer) {
  authorization::Attributes attributes;
  attributes.user = user;
  attributes.verb = verb;
  attributes.resource_request = true;
  attributes.group = kGroup;
  attributes.version = "*";
  attributes.resource = "signers";
  attributes.name = signer;
  if (authorizer.authorize(attributes).decision == authorization::Decision::Allow) {
    return true;
  }
  const size_t slash = signer.find('/');
  if (slash == std::string::npos) {
    return false;
  }
  attributes.name = signer.substr(0, slash) + "/*";
  return authorizer.authorize(attributes).decision == authorization::Decision::Allow;
}

const json& status_field(const json& csr, const char* name) {
  static const json kNull;
  const json* found = registry::find_path(csr, {"status", name});
  return found != nullptr ? *found : kNull;
}

}  // namespace

registry::Admission certificate_admission(const authorization::Authorizer& authorizer,
                                          const registry::Resource& r, const RequestInfo& info,
                                          const http::Request& request) {
  if (r.group != kGroup || r.resource != "certificatesigningrequests") {
    return {};
  }
  return [&authorizer, &info, &request](const json* old,
                                        const json& object) -> std::optional<errors::Status> {
    const std::string name = registry::string_at(object, {"metadata", "name"});
    const authorization::User user{request.user, request.groups};
    if (old == nullptr) {
      if (registry::string_at(object, {"spec", "signerName"}) !=
          "kubernetes.io/kube-apiserver-client") {
        return std::nullopt;
      }
      for (const std::string& group : requested_organizations(object)) {
        if (group == "system:masters") {
          return forbidden(name,
                           "use of kubernetes.io/kube-apiserver-client signer with system:masters "
                           "group is not allowed");
        }
      }
      return std::nullopt;
    }
    // Against the signer as stored, whatever the write says.
    const std::string signer = registry::string_at(*old, {"spec", "signerName"});
    if (info.subresource == "approval" &&
        !allowed_for_signer(authorizer, user, "approve", signer)) {
      return forbidden(name, "user not permitted to approve requests with signerName " +
                                 common::go_quote(signer));
    }
    if (info.subresource == "status" &&
        (status_field(*old, "certificate") != status_field(object, "certificate") ||
         status_field(*old, "conditions") != status_field(object, "conditions")) &&
        !allowed_for_signer(authorizer, user, "sign", signer)) {
      return forbidden(
          name, "user not permitted to sign requests with signerName " + common::go_quote(signer));
    }
    return std::nullopt;
  };
}

}  // namespace apiserver::endpoints
