// One audit.k8s.io/v1 Event and its JSON line, with the fields in the order and the omissions of
// kube-apiserver's log backend (Go's encoding of the Event struct).
#pragma once

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "audit/policy.h"

namespace apiserver::audit {

// authentication.k8s.io/v1 UserInfo.
struct UserInfo {
  std::string username;
  std::string uid;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> extra;
};

struct ObjectReference {
  std::string resource;
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string api_group;
  std::string api_version;
  std::string resource_version;
  std::string subresource;
};

// The bounded part of the response's metav1.Status (status, message, reason, details, code).
struct ResponseStatus {
  std::string status;
  std::string message;
  std::string reason;
  std::optional<nlohmann::ordered_json> details;
  int code = 0;
};

struct Event {
  Level level = Level::None;
  std::string audit_id;
  Stage stage = Stage::RequestReceived;
  std::string request_uri;
  std::string verb;
  UserInfo user;
  std::optional<UserInfo> impersonated_user;
  std::vector<std::string> source_ips;
  std::string user_agent;
  std::optional<ObjectReference> object_ref;
  std::optional<ResponseStatus> response_status;
  std::optional<nlohmann::ordered_json> request_object;  // in the order sent
  std::optional<nlohmann::ordered_json> response_object;
  std::chrono::system_clock::time_point request_received;
  std::chrono::system_clock::time_point stage_time;
  std::map<std::string, std::string> annotations;
};

// The event as one line of JSON (no newline), timestamps as metav1.MicroTime.
std::string render(const Event& event);

// The status of a response body that is a metav1.Status (kind Status), else nullopt.
std::optional<ResponseStatus> status_of(const nlohmann::ordered_json& body);

// Drops metadata.managedFields from an object and from the items of a list (the policy's
// omitManagedFields).
void drop_managed_fields(nlohmann::ordered_json& object);

}  // namespace apiserver::audit
