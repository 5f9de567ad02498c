#include "conversion/webhook_converter.h"

#include "common/go_quote.h"
#include "registry/json_access.h"
#include "registry/objects.h"
#include "registry/walk_depth.h"
#include "webhook/client.h"

namespace apiserver::conversion {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

// The first review version this server speaks, in the CRD's order.
std::string review_version(const std::vector<std::string>& accepted) {
  for (const auto& v : accepted) {
    if (v == "v1" || v == "v1beta1") {
      return v;
    }
  }
  return "";
}

// Go's rendering of the GroupVersionKind of a decoded answer.
std::string answer_gvk(const json& doc) {
  return registry::gvk_text(registry::string_at(doc, {"apiVersion"}),
                            registry::string_at(doc, {"kind"}));
}

// The converted objects of a decoded answer, or why there are none (upstream's
// getConvertedObjectsFromResponse).
common::Result<std::vector<json>> converted_objects(const json& doc, const std::string& version,
                                                    const std::string& uid) {
  using Failure = common::Result<std::vector<json>>;
  if (version == "v1") {
    const std::string expected = "apiextensions.k8s.io/v1, Kind=ConversionReview";
    if (answer_gvk(doc) != expected) {
      return Failure::failure("expected webhook response of " + expected + ", got " +
                              answer_gvk(doc));
    }
  }
  auto response = doc.find("response");
  if (response == doc.end() || !response->is_object()) {
    return Failure::failure("no response provided");
  }
  if (version == "v1" && registry::string_at(*response, {"uid"}) != uid) {
    return Failure::failure("expected response.uid=" + common::go_quote(uid) + ", got " +
                            common::go_quote(registry::string_at(*response, {"uid"})));
  }
  const json result = response->value("result", json::object());
  if (registry::string_at(result, {"status"}) != "Success") {
    const std::string message = registry::string_at(result, {"message"});
    if (!message.empty()) {
      return Failure::failure(message);
    }
    return Failure::failure("response.result.status was '" +
                            registry::string_at(result, {"status"}) + "', not 'Success'");
  }
  std::vector<json> out;
  auto objects = response->find("convertedObjects");
  if (objects != response->end() && objects->is_array()) {
    for (const auto& object : *objects) {
      out.push_back(object);
    }
  }
  return out;
}

}  // namespace

WebhookConverter::WebhookConverter(webhook::ClientConfig config,
                                   std::vector<std::string> review_versions,
                                   webhook::Lookups lookups, std::chrono::milliseconds timeout)
    : config_(std::move(config)),
      review_versions_(std::move(review_versions)),
      lookups_(std::move(lookups)),
      timeout_(timeout) {}

common::Result<std::vector<json>> WebhookConverter::convert(const std::vector<json>& objects,
                                                            const std::string& api_version,
                                                            const std::string& what) const {
  using Failure = common::Result<std::vector<json>>;
  const std::string version = review_version(review_versions_);
  if (version.empty()) {
    return Failure::failure("no supported conversion review versions");
  }
  const std::string failed = "conversion webhook for " + what + " failed: ";
  const std::string uid = registry::new_uid();
  // Go sends the review with an empty response member, as upstream builds it.
  ordered_json review = {
      {"kind", "ConversionReview"},
      {"apiVersion", "apiextensions.k8s.io/" + version},
      {"request",
       {{"uid", uid}, {"desiredAPIVersion", api_version}, {"objects", ordered_json::array()}}},
      {"response",
       {{"uid", ""},
        {"convertedObjects", nullptr},
        {"result", {{"metadata", ordered_json::object()}}}}}};
  for (const auto& object : objects) {
    review["request"]["objects"].push_back(ordered_json::parse(object.dump()));
  }
  const int seconds =
      static_cast<int>(std::chrono::duration_cast<std::chrono::seconds>(timeout_).count());
  auto target = webhook::resolve(config_, seconds, lookups_);
  if (!target) {
    return Failure::failure(failed + target.error());
  }
  auto answer =
      webhook::post_json(*target, review.dump(-1, ' ', false, json::error_handler_t::replace),
                         timeout_, kMaxAnswerBytes);
  if (!answer) {
    return Failure::failure(failed + answer.error());
  }
  const json doc = json::parse(answer->body, nullptr, false);
  if (answer->status < 200 || answer->status > 299) {
    if (doc.is_object() && registry::string_at(doc, {"kind"}) == "Status" &&
        !registry::string_at(doc, {"message"}).empty()) {
      return Failure::failure(failed + registry::string_at(doc, {"message"}));
    }
    return Failure::failure(failed + webhook::rest_client_error(answer->status, answer->body));
  }
  if (doc.is_discarded()) {
    return Failure::failure(
        failed + "couldn't get version/kind; json parse error: " +
        (answer->body.empty() ? "unexpected end of JSON input" : "invalid JSON"));
  }
  const int limit = static_cast<int>(registry::kMaxNestingDepth);
  if (registry::json_depth(doc, limit) > limit) {
    return Failure::failure(
        failed +
        "couldn't get version/kind; json parse error: invalid character '[' exceeded max depth");
  }
  if (!doc.is_object()) {
    return Failure::failure(failed +
                            "couldn't get version/kind; json parse error: json: cannot "
                            "unmarshal " +
                            std::string(doc.is_array() ? "array" : "value") +
                            " into Go value of type struct { APIVersion string "
                            "\"json:\\\"apiVersion,omitempty\\\"\"; Kind string "
                            "\"json:\\\"kind,omitempty\\\"\" }");
  }
  auto converted = converted_objects(doc, version, uid);
  if (!converted) {
    return Failure::failure(failed + converted.error());
  }
  for (const auto& object : *converted) {
    if (!object.is_object()) {
      return Failure::failure("json: cannot unmarshal " +
                              std::string(object.is_array() ? "array" : "value") +
                              " into Go value of type map[string]interface {}");
    }
  }
  return converted;
}

std::shared_ptr<const registry::CustomConverter> converter_for(const json& crd,
                                                               webhook::Lookups lookups) {
  const json::json_pointer at("/spec/conversion");
  const json conversion = crd.contains(at) ? crd.at(at) : json::object();
  if (registry::string_at(conversion, {"strategy"}) != "Webhook") {
    return nullptr;
  }
  const json hook = conversion.value("webhook", json::object());
  const json client_config = hook.is_object() ? hook.value("clientConfig", json::object()) : json();
  std::vector<std::string> versions;
  if (hook.is_object() && hook.contains("conversionReviewVersions") &&
      hook["conversionReviewVersions"].is_array()) {
    for (const auto& v : hook["conversionReviewVersions"]) {
      if (v.is_string()) {
        versions.push_back(v.get<std::string>());
      }
    }
  }
  return std::make_shared<const WebhookConverter>(webhook::client_config_from_json(client_config),
                                                  std::move(versions), std::move(lookups));
}

}  // namespace apiserver::conversion
