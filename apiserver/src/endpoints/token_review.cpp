#include "endpoints/token_review.h"

#include "errors/status.h"

namespace apiserver::endpoints {

using nlohmann::json;
using nlohmann::ordered_json;

ordered_json user_info_json(const std::string& name, const std::string& uid,
                            const std::vector<std::string>& groups,
                            const std::map<std::string, std::vector<std::string>>& extra) {
  ordered_json user = ordered_json::object();
  if (!name.empty()) {
    user["username"] = name;
  }
  if (!uid.empty()) {
    user["uid"] = uid;
  }
  if (!groups.empty()) {
    user["groups"] = groups;
  }
  if (!extra.empty()) {
    user["extra"] = extra;
  }
  return user;
}

errors::Result<ordered_json> token_review_status(const json& spec,
                                                 const filters::Authenticator& authenticator) {
  std::string token;
  std::vector<std::string> audiences;
  if (spec.is_object()) {
    if (auto it = spec.find("token"); it != spec.end() && it->is_string()) {
      token = it->get<std::string>();
    }
    if (auto it = spec.find("audiences"); it != spec.end() && it->is_array()) {
      for (const json& audience : *it) {
        if (audience.is_string()) {
          audiences.push_back(audience.get<std::string>());
        }
      }
    }
  }
  if (token.empty()) {
    return errors::bad_request("token is required for TokenReview in authentication");
  }
  filters::TokenReviewAnswer review = authenticator.review(token, std::move(audiences));
  ordered_json status = ordered_json::object();
  if (review.authenticated) {
    status["authenticated"] = true;
  }
  status["user"] =
      user_info_json(review.user.name, review.user.uid, review.user.groups, review.user.extra);
  if (!review.audiences.empty()) {
    status["audiences"] = review.audiences;
  }
  if (!review.error.empty()) {
    status["error"] = review.error;
  }
  return status;
}

}  // namespace apiserver::endpoints
