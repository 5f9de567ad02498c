// ConsoleState's access: who the console is connected as (a SelfSubjectReview), what the user may
// do per namespace and cluster-wide (SelfSubjectRulesReviews, asked for the namespaces in use and
// for model::kClusterScope, and again every kRulesRefreshMs), the actions the object pane greys
// out, the kinds the tree marks as not listable, and the streams' refusals: a namespaced kind the
// user may not list cluster-wide is watched in the selected namespace instead.
#include <algorithm>

#include "console/app/console_state.h"
#include "model/json_fields.h"

namespace console::app {

namespace {

using json = nlohmann::json;

constexpr const char* kNamespacesKey = "core/namespaces";

// The server's own wording of an RBAC denial, so that a greyed-out action reads as the refusal
// the server would send.
std::string denial(const std::optional<model::UserInfo>& user, std::string_view verb,
                   const model::ApiResource& r, std::string_view namespace_) {
  std::string text = "User \"" + (user ? user->username : std::string("?")) + "\" cannot " +
                     std::string(verb) + " resource \"" + r.resource + "\" in API group \"" +
                     r.group + "\"";
  if (r.namespaced && !namespace_.empty()) {
    return text + " in the namespace \"" + std::string(namespace_) + "\"";
  }
  return text + " at the cluster scope";
}

}  // namespace

std::string ConsoleState::rules_namespace() const {
  if (!namespaces_.selected().empty()) {
    return namespaces_.selected();
  }
  return session_.access().namespace_.empty() ? "default" : session_.access().namespace_;
}

void ConsoleState::ask_access() {
  if (!discovered_) {
    return;  // the server answers; ask once the API is known to be there
  }
  if (!whoami_asked_) {
    client::Request request;
    request.method = "POST";
    request.target = "/apis/authentication.k8s.io/v1/selfsubjectreviews";
    request.content_type = "application/json";
    request.body = R"({"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"})";
    whoami_asked_ = send(Purpose::WhoAmI, std::move(request)) != 0;
  }
  std::vector<std::string> wanted = {rules_namespace(), model::kClusterScope};
  if (const auto ref = selected_ref(); ref && !ref->namespace_.empty()) {
    wanted.push_back(ref->namespace_);
  }
  for (const std::string& ns : wanted) {
    NamespaceRules& entry = rules_[ns];
    if (entry.in_flight || (entry.asked_ms != 0 && now_ms_ - entry.asked_ms < kRulesRefreshMs)) {
      continue;
    }
    client::Request request;
    request.method = "POST";
    request.target = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews";
    request.content_type = "application/json";
    request.body = json{{"apiVersion", "authorization.k8s.io/v1"},
                        {"kind", "SelfSubjectRulesReview"},
                        {"spec", {{"namespace", ns}}}}
                       .dump();
    const uint64_t id = send(Purpose::Rules, std::move(request));
    if (id == 0) {
      return;
    }
    entry.in_flight = true;
    entry.asked_ms = now_ms_;
    rules_pending_[id] = ns;
  }
}

void ConsoleState::on_access_reply(Purpose purpose, uint64_t id, bool sent, int status,
                                   const std::string& body) {
  const json document = sent && status == 201 ? json::parse(body, nullptr, false) : json();
  if (purpose == Purpose::WhoAmI) {
    auto user = model::parse_self_subject_review(document);
    if (user.ok()) {
      user_ = std::move(*user);
      whoami_error_.clear();
    } else {
      whoami_error_ = sent ? (status == 201 ? user.error() : client::refusal_text(status, body))
                           : "cannot ask who the user is";
    }
    return;
  }
  const auto it = rules_pending_.find(id);
  if (it == rules_pending_.end()) {
    return;
  }
  NamespaceRules& entry = rules_[it->second];
  rules_pending_.erase(it);
  entry.in_flight = false;
  auto rules = model::AccessRules::parse(document);
  if (rules.ok()) {
    entry.rules = std::move(*rules);
  } else if (sent) {
    entry.rules.reset();  // not answered (an old server, or refused): unknown, the server decides
  }
}

const model::AccessRules* ConsoleState::rules(const std::string& namespace_) const {
  const auto it = rules_.find(namespace_);
  return it != rules_.end() && it->second.rules ? &*it->second.rules : nullptr;
}

Permission ConsoleState::may(std::string_view verb, const model::ApiResource& resource,
                             std::string_view namespace_, std::string_view name) const {
  // A cluster-scoped resource, or a namespaced one in all namespaces: the cluster-wide rules.
  const bool in_namespace = resource.namespaced && !namespace_.empty();
  const model::AccessRules* known =
      rules(in_namespace ? std::string(namespace_) : std::string(model::kClusterScope));
  if (known == nullptr ||
      known->check(verb, resource.group, resource.resource, name) != model::Access::Denied) {
    return {};
  }
  return {false, denial(user_, verb, resource, in_namespace ? namespace_ : "")};
}

Permission ConsoleState::may_edit() const {
  const OpenKind* kind = current();
  const auto ref = selected_ref();
  if (kind == nullptr || !ref) {
    return {};
  }
  const model::ApiResource& r = kind->table.resource();
  Permission patch = may("patch", r, ref->namespace_, ref->name);
  if (patch.allowed || may("update", r, ref->namespace_, ref->name).allowed) {
    return {};
  }
  return patch;
}

Permission ConsoleState::may_delete() const {
  const OpenKind* kind = current();
  const auto ref = selected_ref();
  if (kind == nullptr || !ref) {
    return {};
  }
  return may("delete", kind->table.resource(), ref->namespace_, ref->name);
}

Permission ConsoleState::may_create() const {
  const OpenKind* kind = current();
  if (kind == nullptr) {
    return {};
  }
  return may("create", kind->table.resource(), rules_namespace());
}

Permission ConsoleState::may_editor(std::string_view verb) const {
  if (!editor_target_) {
    return {};
  }
  const auto it = kinds_.find(editor_target_->kind_key);
  if (it == kinds_.end()) {
    return {};
  }
  return may(verb, it->second.table.resource(), editor_target_->namespace_,
             creating_ ? std::string_view() : std::string_view(editor_target_->name));
}

std::optional<std::string> ConsoleState::list_denied(const model::ApiResource& resource) const {
  const std::string key = resource.key();
  const std::string& ns = resource.namespaced ? namespaces_.selected() : std::string();
  if (const auto it = kinds_.find(key); it != kinds_.end()) {
    const OpenKind& kind = it->second;
    if (kind.refused != 0 && kind.scope == ns) {
      return kind.error;
    }
  } else if (const auto refused = count_refused_.find(key); refused != count_refused_.end()) {
    return refused->second;
  }
  // In all namespaces, the cluster-wide rules say whether the list that streams will be refused.
  if (const Permission list = may("list", resource, ns); !list.allowed) {
    return list.reason;
  }
  return std::nullopt;
}

void ConsoleState::on_refused(OpenKind& kind) {
  const model::ApiResource& r = kind.table.resource();
  if (r.key() == kNamespacesKey) {
    namespaces_denied_ = kind.error;
    if (namespaces_.names().empty()) {
      // The user may not list namespaces: offer the context's, as kubectl would use it.
      const std::string ns =
          session_.access().namespace_.empty() ? "default" : session_.access().namespace_;
      namespaces_.replace(json{{"items", json::array({{{"metadata", {{"name", ns}}}}})}});
      select_namespace(ns);
    }
    return;
  }
  if (r.namespaced && kind.scope.empty() && !namespaces_.selected().empty()) {
    rescope(r.key(), namespaces_.selected());
  }
}

void ConsoleState::rescope(const std::string& key, const std::string& scope) {
  const auto it = kinds_.find(key);
  if (it == kinds_.end()) {
    return;
  }
  const model::ApiResource resource = it->second.table.resource();
  const int64_t shown = it->second.last_shown_ms;
  // The new stream replaces the old one under the same key; the old one's messages are ignored
  // by their stream_id.
  kinds_.erase(it);
  open_kind(resource, scope);
  if (OpenKind* kind = find_open(key)) {
    kind->last_shown_ms = shown;
  }
}

void ConsoleState::on_namespace_changed() {
  const std::string& selected = namespaces_.selected();
  std::vector<std::string> follow;
  for (const auto& [key, kind] : kinds_) {
    if (!kind.table.resource().namespaced || key == kNamespacesKey) {
      continue;
    }
    // Watched in another namespace, or refused cluster-wide while one is now picked.
    if ((!kind.scope.empty() && kind.scope != selected) ||
        (kind.scope.empty() && kind.refused != 0 && !selected.empty())) {
      follow.push_back(key);
    }
  }
  for (const std::string& key : follow) {
    rescope(key, selected);
  }
  rebuild_current(true);
}

nlohmann::json ConsoleState::access_json() const {
  const auto permission = [](const Permission& p) {
    return json{{"allowed", p.allowed}, {"reason", p.reason}};
  };
  json denied = json::object();
  for (const auto& group : tree_.groups()) {
    for (const auto& r : group.resources) {
      if (auto why = r.has_verb("list") ? list_denied(r) : std::nullopt) {
        denied[r.key()] = std::move(*why);
      }
    }
  }
  const std::string ns = rules_namespace();
  return {{"user", user_ ? json(user_->username) : json()},
          {"groups", user_ ? json(user_->groups) : json::array()},
          {"whoamiError", whoami_error_},
          {"rulesNamespace", ns},
          {"rulesKnown", rules(ns) != nullptr},
          {"namespacesDenied", namespaces_denied_},
          {"edit", permission(may_edit())},
          {"delete", permission(may_delete())},
          {"create", permission(may_create())},
          {"listDenied", std::move(denied)}};
}

}  // namespace console::app
