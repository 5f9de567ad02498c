#include "errors/status.h"

namespace apiserver::errors {
namespace {

nlohmann::ordered_json details_json(const Details& d) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& [key, value] :
       {std::pair{"name", &d.name}, {"group", &d.group}, {"kind", &d.kind}, {"uid", &d.uid}}) {
    if (!value->empty()) {
      out[key] = *value;
    }
  }
  if (!d.causes.empty()) {
    nlohmann::ordered_json causes = nlohmann::ordered_json::array();
    for (const auto& c : d.causes) {
      nlohmann::ordered_json cause = nlohmann::ordered_json::object();
      for (const auto& [key, value] :
           {std::pair{"reason", &c.reason}, {"message", &c.message}, {"field", &c.field}}) {
        if (!value->empty()) {
          cause[key] = *value;
        }
      }
      causes.push_back(std::move(cause));
    }
    out["causes"] = std::move(causes);
  }
  if (d.retry_after_seconds != 0) {
    out["retryAfterSeconds"] = d.retry_after_seconds;
  }
  return out;
}

std::string text_at(const nlohmann::json& doc, const char* key) {
  auto it = doc.find(key);
  return it != doc.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

Details Details::from_json(const nlohmann::json& details) {
  Details d;
  if (!details.is_object()) {
    return d;
  }
  d.name = text_at(details, "name");
  d.group = text_at(details, "group");
  d.kind = text_at(details, "kind");
  d.uid = text_at(details, "uid");
  if (auto causes = details.find("causes"); causes != details.end() && causes->is_array()) {
    for (const auto& c : *causes) {
      if (c.is_object()) {
        d.causes.push_back({text_at(c, "reason"), text_at(c, "message"), text_at(c, "field")});
      }
    }
  }
  if (auto retry = details.find("retryAfterSeconds");
      retry != details.end() && retry->is_number_integer()) {
    d.retry_after_seconds = retry->get<int>();
  }
  return d;
}

nlohmann::ordered_json Status::document() const {
  nlohmann::ordered_json doc = {
      {"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", nlohmann::json::object()}};
  if (!status.empty()) {
    doc["status"] = status;
  }
  if (!message.empty()) {
    doc["message"] = message;
  }
  if (!reason.empty()) {
    doc["reason"] = reason;
  }
  if (details) {
    doc["details"] = details_json(*details);
  }
  if (code != 0) {
    doc["code"] = code;
  }
  return doc;
}

std::string Status::json() const {
  return document().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Status Status::from_json(const nlohmann::json& doc) {
  Status s;
  s.status = text_at(doc, "status");
  s.message = text_at(doc, "message");
  s.reason = text_at(doc, "reason");
  auto code = doc.find("code");
  s.code = code != doc.end() && code->is_number_integer() ? code->get<int>() : 0;
  if (auto details = doc.find("details"); details != doc.end() && details->is_object()) {
    s.details = Details::from_json(*details);
  }
  return s;
}

http::Response Status::response() const {
  http::Response r;
  r.status = code == 0 ? 200 : code;
  r.set_header("Content-Type", "application/json");
  r.body = json();
  return r;
}

Details object_details(std::string name, std::string group, std::string kind, std::string uid) {
  Details d;
  d.name = std::move(name);
  d.group = std::move(group);
  d.kind = std::move(kind);
  d.uid = std::move(uid);
  return d;
}

Status failure(int code, const std::string& reason, const std::string& message,
               std::optional<Details> details) {
  return {code, "Failure", message, reason, std::move(details)};
}

Status bad_request(const std::string& message) {
  return failure(400, "BadRequest", message);
}

Status internal_error(const std::string& detail) {
  Details details;
  details.causes.push_back({"", detail, ""});
  return failure(500, "InternalError", "Internal error occurred: " + detail, std::move(details));
}

Status no_route() {
  return failure(404, "NotFound", "the server could not find the requested resource", Details{});
}

Status method_not_routed() {
  return failure(405, "MethodNotAllowed",
                 "the server does not allow this method on the requested resource", Details{});
}

}  // namespace apiserver::errors
