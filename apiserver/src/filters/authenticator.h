// Who is asking, as kube-apiserver's union of request authenticators decides it: a verified
// client certificate (CN = user, O = groups) first; then a bearer token, offered to the static
// tokens (--token-auth-file) and to each added TokenAuthenticator (the service-account tokens) in
// order, the first to take it winning; a request with neither is system:anonymous (in group
// system:unauthenticated), or refused when anonymous requests are off. A bearer token
// that none takes is refused (401); the reason is kube-apiserver's aggregate text,
// "[invalid bearer token, <each authenticator's error>]", or "invalid bearer token" alone.
//
// Audiences: requests are authenticated for the API audiences. The static tokens and client
// certificates are valid for those alone; a TokenReview that asks for other audiences does not
// get them.
//
// Thread-safe once set up: add() and the constructor before serving, then any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apiserver/http.h"
#include "filters/authentication.h"
#include "filters/token_authenticator.h"

namespace apiserver::filters {

struct Authentication {
  std::optional<UserInfo> user;  // nullopt: credentials were presented and are not valid (401)
  std::string error;             // why, when nullopt
};

// A TokenReview's answer: the user (with system:authenticated) and the audiences when
// authenticated, else the error.
struct TokenReviewAnswer {
  bool authenticated = false;
  UserInfo user;
  std::vector<std::string> audiences;
  std::string error;
};

// kube-apiserver's requestheader authenticator (--requestheader-*): a front proxy (the
// aggregator of another server, an authenticating proxy) presents a certificate of the
// requestheader CA whose common name is allowed (any, when the list is empty), and says who the
// user is in request headers: the first non-empty username header, every value of the group
// headers, and extra values in headers starting with an extra prefix (the rest of the name,
// unescaped and lower-cased, is the key).
struct RequestHeaderConfig {
  std::vector<std::string> allowed_names;
  std::vector<std::string> username_headers = {"X-Remote-User"};
  std::vector<std::string> group_headers = {"X-Remote-Group"};
  std::vector<std::string> extra_prefixes = {"X-Remote-Extra-"};
};

class Authenticator {
 public:
  // `tokens` must outlive the authenticator.
  explicit Authenticator(const TokenTable& tokens,
                         std::vector<std::string> api_audiences = std::vector<std::string>());

  // Adds a token authenticator after the ones there; it must outlive this one.
  void add(const TokenAuthenticator& authenticator) {
    token_authenticators_.push_back(&authenticator);
  }
  const std::vector<std::string>& api_audiences() const { return api_audiences_; }
  // --anonymous-auth: whether a request without credentials is system:anonymous (the default)
  // or refused with a 401.
  void set_anonymous(bool allowed) { anonymous_ = allowed; }
  // Turns the requestheader authenticator on (the first of the union, as upstream's).
  void set_request_header(RequestHeaderConfig config) { request_header_ = std::move(config); }

  Authentication authenticate(const http::Request& request) const;
  // TokenReview: the token authenticated for `audiences` (empty: the API audiences).
  TokenReviewAnswer review(std::string_view token, std::vector<std::string> audiences) const;

 private:
  // The union of the token authenticators for one token; Failed carries the aggregate text.
  TokenAnswer authenticate_token(std::string_view token,
                                 const std::vector<std::string>& audiences) const;

  const TokenTable& tokens_;
  std::vector<std::string> api_audiences_;
  std::vector<const TokenAuthenticator*> token_authenticators_;
  bool anonymous_ = true;
  std::optional<RequestHeaderConfig> request_header_;
};

// The user with system:authenticated added (unless there already), as kube-apiserver's group
// adder does for every authenticated user.
UserInfo with_authenticated_group(UserInfo user);

}  // namespace apiserver::filters
