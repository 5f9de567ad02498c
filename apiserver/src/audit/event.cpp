#include "audit/event.h"

#include "common/rfc3339.h"

namespace apiserver::audit {
namespace {

using Ordered = nlohmann::ordered_json;

std::string micro_time(std::chrono::system_clock::time_point t) {
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
  std::int64_t seconds = micros / 1000000;
  std::int64_t fraction = micros % 1000000;
  if (fraction < 0) {
    fraction += 1000000;
    seconds -= 1;
  }
  return common::format_rfc3339_micro(seconds, static_cast<std::int32_t>(fraction)).value_or("");
}

void put(Ordered& out, const char* key, const std::string& value) {
  if (!value.empty()) {
    out[key] = value;
  }
}

Ordered user_json(const UserInfo& user) {
  Ordered out = Ordered::object();
  put(out, "username", user.username);
  put(out, "uid", user.uid);
  if (!user.groups.empty()) {
    out["groups"] = user.groups;
  }
  if (!user.extra.empty()) {
    Ordered extra = Ordered::object();
    for (const auto& [key, values] : user.extra) {
      extra[key] = values;
    }
    out["extra"] = std::move(extra);
  }
  return out;
}

Ordered object_ref_json(const ObjectReference& ref) {
  Ordered out = Ordered::object();
  put(out, "resource", ref.resource);
  put(out, "namespace", ref.namespace_);
  put(out, "name", ref.name);
  put(out, "uid", ref.uid);
  put(out, "apiGroup", ref.api_group);
  put(out, "apiVersion", ref.api_version);
  put(out, "resourceVersion", ref.resource_version);
  put(out, "subresource", ref.subresource);
  return out;
}

Ordered status_json(const ResponseStatus& status) {
  Ordered out = Ordered::object();
  out["metadata"] = Ordered::object();
  put(out, "status", status.status);
  put(out, "message", status.message);
  put(out, "reason", status.reason);
  if (status.details) {
    out["details"] = *status.details;
  }
  if (status.code != 0) {
    out["code"] = status.code;
  }
  return out;
}

}  // namespace

std::string render(const Event& event) {
  Ordered out = Ordered::object();
  out["kind"] = "Event";
  out["apiVersion"] = "audit.k8s.io/v1";
  out["level"] = std::string(level_name(event.level));
  out["auditID"] = event.audit_id;
  out["stage"] = std::string(stage_name(event.stage));
  out["requestURI"] = event.request_uri;
  out["verb"] = event.verb;
  out["user"] = user_json(event.user);
  if (event.impersonated_user) {
    out["impersonatedUser"] = user_json(*event.impersonated_user);
  }
  if (!event.source_ips.empty()) {
    out["sourceIPs"] = event.source_ips;
  }
  put(out, "userAgent", event.user_agent);
  if (event.object_ref) {
    out["objectRef"] = object_ref_json(*event.object_ref);
  }
  if (event.response_status) {
    out["responseStatus"] = status_json(*event.response_status);
  }
  if (event.request_object) {
    out["requestObject"] = *event.request_object;
  }
  if (event.response_object) {
    out["responseObject"] = *event.response_object;
  }
  out["requestReceivedTimestamp"] = micro_time(event.request_received);
  out["stageTimestamp"] = micro_time(event.stage_time);
  if (!event.annotations.empty()) {
    out["annotations"] = event.annotations;
  }
  return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::optional<ResponseStatus> status_of(const Ordered& body) {
  if (!body.is_object()) {
    return std::nullopt;
  }
  auto kind = body.find("kind");
  if (kind == body.end() || *kind != "Status") {
    return std::nullopt;
  }
  ResponseStatus status;
  auto text = [&body](const char* key) {
    auto it = body.find(key);
    return it != body.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  status.status = text("status");
  status.message = text("message");
  status.reason = text("reason");
  if (auto details = body.find("details"); details != body.end() && details->is_object()) {
    status.details = *details;
  }
  if (auto code = body.find("code"); code != body.end() && code->is_number_integer()) {
    const auto value = code->get<std::int64_t>();
    status.code = value > 0 && value < 1000 ? static_cast<int>(value) : 0;
  }
  return status;
}

void drop_managed_fields(Ordered& object) {
  if (!object.is_object()) {
    return;
  }
  if (auto meta = object.find("metadata"); meta != object.end() && meta->is_object()) {
    meta->erase("managedFields");
  }
  if (auto items = object.find("items"); items != object.end() && items->is_array()) {
    for (auto& item : *items) {
      if (item.is_object()) {
        if (auto meta = item.find("metadata"); meta != item.end() && meta->is_object()) {
          meta->erase("managedFields");
        }
      }
    }
  }
}

}  // namespace apiserver::audit
