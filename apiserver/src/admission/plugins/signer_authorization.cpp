#include "admission/plugins/signer_authorization.h"

#include "authorization/authorizer.h"

namespace apiserver::admission {

bool authorized_for_signer(const authorization::Authorizer& authorizer, const UserInfo& user,
                           const std::string& verb, const std::string& signer) {
  authorization::Attributes asked;
  asked.user = {user.name, user.groups};
  asked.verb = verb;
  asked.resource_request = true;
  asked.group = "certificates.k8s.io";
  asked.version = "*";
  asked.resource = "signers";
  asked.name = signer;
  if (authorizer.authorize(asked).allowed()) {
    return true;
  }
  const size_t slash = signer.find('/');
  if (slash == std::string::npos) {
    return false;  // a signer name always has a domain; validation says so
  }
  asked.name = signer.substr(0, slash) + "/*";
  return authorizer.authorize(asked).allowed();
}

}  // namespace apiserver::admission
