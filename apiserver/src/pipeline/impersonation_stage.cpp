#include <algorithm>
#include <cctype>

#include "audit/auditor.h"
#include "pipeline/forbidden.h"
#include "pipeline/stages.h"
#include "serviceaccount/claims.h"

namespace apiserver::pipeline {
namespace {

constexpr std::string_view kExtraPrefix = "impersonate-extra-";
constexpr const char* kAuthenticated = "system:authenticated";
constexpr const char* kUnauthenticated = "system:unauthenticated";
constexpr const char* kAnonymous = "system:anonymous";

std::string lowered(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

// An extra's key as the header spells it, %-escapes decoded (url.PathUnescape); a key with a
// broken escape is kept as sent, as upstream does.
std::string unescaped_key(const std::string& key) {
  return http::unescape(key, false).value_or(key);
}

// One thing the request asks to act as (upstream's ObjectReference per header value).
struct Target {
  std::string kind;  // ServiceAccount, User, Group, UserExtra, UID
  std::string namespace_;
  std::string name;
  std::string api_version;  // authentication.k8s.io/v1 for UserExtra and UID
  std::string field_path;   // the extra's key
};

// Go's %v of a []ObjectReference, as the error about a missing user prints it.
std::string rendered(const std::vector<Target>& targets) {
  std::string out = "[";
  for (size_t i = 0; i < targets.size(); ++i) {
    const Target& t = targets[i];
    out += (i == 0 ? "{" : " {") + t.kind + " " + t.namespace_ + " " + t.name + "  " +
           t.api_version + "  " + t.field_path + "}";
  }
  return out + "]";
}

// What the headers ask for, in upstream's order: the user (or service account), the groups, the
// extras (by key), the uid.
std::vector<Target> targets_of(const http::Request& request, bool& has_user) {
  std::vector<Target> out;
  const auto users = request.header_values("Impersonate-User");
  has_user = !users.empty() && !users.front().empty();
  if (has_user) {
    if (auto account = serviceaccount::split_username(users.front())) {
      out.push_back({"ServiceAccount", account->first, account->second, "", ""});
    } else {
      out.push_back({"User", "", users.front(), "", ""});
    }
  }
  for (auto& group : request.header_values("Impersonate-Group")) {
    out.push_back({"Group", "", std::move(group), "", ""});
  }
  for (const auto& [name, value] : request.headers) {
    if (name.size() <= kExtraPrefix.size() ||
        lowered(std::string_view(name).substr(0, kExtraPrefix.size())) != kExtraPrefix) {
      continue;
    }
    const std::string key = unescaped_key(lowered(name.substr(kExtraPrefix.size())));
    for (auto& v : request.header_values(name)) {
      out.push_back({"UserExtra", "", std::move(v), "authentication.k8s.io/v1", key});
    }
  }
  const auto uids = request.header_values("Impersonate-Uid");
  if (!uids.empty() && !uids.front().empty()) {
    out.push_back({"UID", "", uids.front(), "authentication.k8s.io/v1", ""});
  }
  return out;
}

bool contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

}  // namespace

Stage impersonation_stage(const authorization::Authorizer& authorizer) {
  return {
      "impersonation", [&authorizer](Context& context) -> Outcome {
        const http::Request& request = context.request;
        bool has_user = false;
        const std::vector<Target> targets = targets_of(request, has_user);
        if (targets.empty()) {
          return {"", std::nullopt};
        }
        if (!has_user) {
          return {"refused: no user",
                  internal_error_text(
                      request, "requested " + rendered(targets) + " without impersonating a user")};
        }
        const bool groups_given = !request.header_values("Impersonate-Group").empty();
        filters::UserInfo acting;
        for (const Target& t : targets) {
          authorization::Attributes a;
          a.user.name = context.user.name;
          a.user.groups = context.user.groups;
          a.verb = "impersonate";
          a.resource_request = true;
          a.namespace_ = t.namespace_;
          a.name = t.name;
          if (t.kind == "ServiceAccount") {
            a.resource = "serviceaccounts";
            acting.name = serviceaccount::service_account_username(t.namespace_, t.name);
            if (!groups_given) {
              acting.groups = {"system:serviceaccounts", "system:serviceaccounts:" + t.namespace_};
            }
          } else if (t.kind == "User") {
            a.resource = "users";
            acting.name = t.name;
          } else if (t.kind == "Group") {
            a.resource = "groups";
            acting.groups.push_back(t.name);
          } else if (t.kind == "UserExtra") {
            a.group = "authentication.k8s.io";
            a.version = "v1";
            a.resource = "userextras";
            a.subresource = t.field_path;
            acting.extra[t.field_path].push_back(t.name);
          } else {
            a.group = "authentication.k8s.io";
            a.version = "v1";
            a.resource = "uids";
            acting.uid = t.name;
          }
          authorization::Verdict verdict = authorizer.authorize(a);
          if (!verdict.allowed()) {
            std::string decision = "forbid: impersonate " + a.resource + " " + t.name;
            if (!verdict.reason.empty()) {
              decision += ": " + verdict.reason;
            }
            return {std::move(decision), forbidden(a, verdict.reason)};
          }
        }
        if (acting.name != kAnonymous) {
          if (!contains(acting.groups, kAuthenticated) &&
              !contains(acting.groups, kUnauthenticated)) {
            acting.groups.push_back(kAuthenticated);
          }
        } else if (!contains(acting.groups, kUnauthenticated)) {
          acting.groups.push_back(kUnauthenticated);
        }
        audit::log_impersonated_user({acting.name, acting.uid, acting.groups, acting.extra});
        std::string decision = context.user.name + " is acting as " + acting.name;
        context.requestor = std::move(context.user);
        context.user = std::move(acting);
        if (auto* t = context.trace) {
          t->user = context.user.name;
          t->groups = context.user.groups;
        }
        return {std::move(decision), std::nullopt};
      }};
}

}  // namespace apiserver::pipeline
