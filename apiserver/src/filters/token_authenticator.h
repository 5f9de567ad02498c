// A bearer token authenticator, as kube-apiserver's authenticator.Token: given a token and the
// audiences it must be valid for, it either does not recognise the token (another may), takes it
// (the user, and the audiences the token is valid for among those asked), or refuses it with a
// reason. The reasons reach the log and TokenReview's status.error, never the 401 itself.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "filters/authentication.h"

namespace apiserver::filters {

struct TokenAnswer {
  enum class Outcome { NotMine, Authenticated, Failed };
  Outcome outcome = Outcome::NotMine;
  UserInfo user;                       // Authenticated: without system:authenticated
  std::vector<std::string> audiences;  // Authenticated: the audiences asked that it is valid for
  std::string error;                   // Failed

  static TokenAnswer failed(std::string error) {
    TokenAnswer answer;
    answer.outcome = Outcome::Failed;
    answer.error = std::move(error);
    return answer;
  }
};

// Implementations are called from any thread at once (network and worker threads).
class TokenAuthenticator {
 public:
  virtual ~TokenAuthenticator() = default;
  // `audiences`: the API server's own (a request), or a TokenReview's spec.audiences.
  virtual TokenAnswer authenticate_token(std::string_view token,
                                         const std::vector<std::string>& audiences) const = 0;
};

// authenticator.Audiences.Intersect: the entries of `wanted` that `have` holds, in `wanted`'s
// order.
std::vector<std::string> intersect_audiences(const std::vector<std::string>& have,
                                             const std::vector<std::string>& wanted);

// Go's %q of a []string: ["a" "b"].
std::string quote_list(const std::vector<std::string>& values);

}  // namespace apiserver::filters
