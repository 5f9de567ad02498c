// The round-trip annotations of autoscaling/v1 HorizontalPodAutoscalers (see the header): the v1
// metric types written from the v2 form, and read back into it.
#include "registry/kinds/autoscaling_annotations.h"

#include <cstdint>
#include <string_view>

#include "registry/go_text.h"
#include "registry/go_values.h"

namespace apiserver::registry::hpa_annotations {
namespace {

using nlohmann::json;

// Real annotations nest about eight levels; Go's typed decode fails on anything much deeper,
// so deeper text is refused before it is parsed.
constexpr std::size_t kMaxAnnotationDepth = 32;

// ---- reading the v2 form (lenient) ----

// The member `key` of `obj` when `obj` is an object holding it with a non-null value.
const json* member(const json& obj, std::string_view key) {
  if (!obj.is_object()) {
    return nullptr;
  }
  auto it = obj.find(key);
  return it == obj.end() || it->is_null() ? nullptr : &*it;
}

const json& member_or(const json& obj, std::string_view key, const json& fallback) {
  const json* v = member(obj, key);
  return v != nullptr ? *v : fallback;
}

const json kEmptyString = "";
const json kZeroQuantity = "0";
const json kZero = 0;
const json kNull = nullptr;

// Go's CrossVersionObjectReference: kind and name always, apiVersion when set.
OrderedJson object_reference(const json& ref) {
  OrderedJson out = OrderedJson::object();
  out["kind"] = member_or(ref, "kind", kEmptyString);
  out["name"] = member_or(ref, "name", kEmptyString);
  if (const json* v = member(ref, "apiVersion"); v != nullptr && *v != kEmptyString) {
    out["apiVersion"] = *v;
  }
  return out;
}

void put_if(OrderedJson& out, const char* key, const json* value) {
  if (value != nullptr) {
    out[key] = *value;
  }
}

}  // namespace

OrderedJson v1_metric_spec(const json& metric) {
  OrderedJson out = OrderedJson::object();
  out["type"] = member_or(metric, "type", kEmptyString);
  if (const json* src = member(metric, "object"); src != nullptr) {
    const json& target = member_or(*src, "target", kNull);
    const json& id = member_or(*src, "metric", kNull);
    OrderedJson o = OrderedJson::object();
    o["target"] = object_reference(member_or(*src, "describedObject", kNull));
    o["metricName"] = member_or(id, "name", kEmptyString);
    o["targetValue"] = member_or(target, "value", kZeroQuantity);
    put_if(o, "selector", member(id, "selector"));
    put_if(o, "averageValue", member(target, "averageValue"));
    out["object"] = std::move(o);
  }
  if (const json* src = member(metric, "pods"); src != nullptr) {
    const json& id = member_or(*src, "metric", kNull);
    OrderedJson o = OrderedJson::object();
    o["metricName"] = member_or(id, "name", kEmptyString);
    o["targetAverageValue"] =
        member_or(member_or(*src, "target", kNull), "averageValue", kZeroQuantity);
    put_if(o, "selector", member(id, "selector"));
    out["pods"] = std::move(o);
  }
  for (const char* key : {"resource", "containerResource"}) {
    if (const json* src = member(metric, key); src != nullptr) {
      const json& target = member_or(*src, "target", kNull);
      OrderedJson o = OrderedJson::object();
      o["name"] = member_or(*src, "name", kEmptyString);
      put_if(o, "targetAverageUtilization", member(target, "averageUtilization"));
      put_if(o, "targetAverageValue", member(target, "averageValue"));
      if (std::string_view(key) == "containerResource") {
        o["container"] = member_or(*src, "container", kEmptyString);
      }
      out[key] = std::move(o);
    }
  }
  if (const json* src = member(metric, "external"); src != nullptr) {
    const json& target = member_or(*src, "target", kNull);
    const json& id = member_or(*src, "metric", kNull);
    OrderedJson o = OrderedJson::object();
    o["metricName"] = member_or(id, "name", kEmptyString);
    put_if(o, "metricSelector", member(id, "selector"));
    put_if(o, "targetValue", member(target, "value"));
    put_if(o, "targetAverageValue", member(target, "averageValue"));
    out["external"] = std::move(o);
  }
  return out;
}

OrderedJson v1_metric_status(const json& status) {
  OrderedJson out = OrderedJson::object();
  out["type"] = member_or(status, "type", kEmptyString);
  if (const json* src = member(status, "object"); src != nullptr) {
    const json& current = member_or(*src, "current", kNull);
    const json& id = member_or(*src, "metric", kNull);
    OrderedJson o = OrderedJson::object();
    o["target"] = object_reference(member_or(*src, "describedObject", kNull));
    o["metricName"] = member_or(id, "name", kEmptyString);
    o["currentValue"] = member_or(current, "value", kZeroQuantity);
    put_if(o, "selector", member(id, "selector"));
    put_if(o, "averageValue", member(current, "averageValue"));
    out["object"] = std::move(o);
  }
  if (const json* src = member(status, "pods"); src != nullptr) {
    const json& id = member_or(*src, "metric", kNull);
    OrderedJson o = OrderedJson::object();
    o["metricName"] = member_or(id, "name", kEmptyString);
    o["currentAverageValue"] =
        member_or(member_or(*src, "current", kNull), "averageValue", kZeroQuantity);
    put_if(o, "selector", member(id, "selector"));
    out["pods"] = std::move(o);
  }
  for (const char* key : {"resource", "containerResource"}) {
    if (const json* src = member(status, key); src != nullptr) {
      const json& current = member_or(*src, "current", kNull);
      OrderedJson o = OrderedJson::object();
      o["name"] = member_or(*src, "name", kEmptyString);
      put_if(o, "currentAverageUtilization", member(current, "averageUtilization"));
      o["currentAverageValue"] = member_or(current, "averageValue", kZeroQuantity);
      if (std::string_view(key) == "containerResource") {
        o["container"] = member_or(*src, "container", kEmptyString);
      }
      out[key] = std::move(o);
    }
  }
  if (const json* src = member(status, "external"); src != nullptr) {
    const json& current = member_or(*src, "current", kNull);
    const json& id = member_or(*src, "metric", kNull);
    OrderedJson o = OrderedJson::object();
    o["metricName"] = member_or(id, "name", kEmptyString);
    put_if(o, "metricSelector", member(id, "selector"));
    o["currentValue"] = member_or(current, "value", kZeroQuantity);
    put_if(o, "currentAverageValue", member(current, "averageValue"));
    out["external"] = std::move(o);
  }
  return out;
}

namespace {

OrderedJson internal_rules(const json* rules) {
  if (rules == nullptr) {
    return nullptr;
  }
  OrderedJson out = OrderedJson::object();
  out["StabilizationWindowSeconds"] = member_or(*rules, "stabilizationWindowSeconds", kNull);
  out["SelectPolicy"] = member_or(*rules, "selectPolicy", kNull);
  const json* policies = member(*rules, "policies");
  if (policies == nullptr || !policies->is_array()) {
    out["Policies"] = nullptr;
    return out;
  }
  OrderedJson list = OrderedJson::array();
  for (const json& p : *policies) {
    OrderedJson policy = OrderedJson::object();
    policy["Type"] = member_or(p, "type", kEmptyString);
    policy["Value"] = member_or(p, "value", kZero);
    policy["PeriodSeconds"] = member_or(p, "periodSeconds", kZero);
    list.push_back(std::move(policy));
  }
  out["Policies"] = std::move(list);
  return out;
}

}  // namespace

OrderedJson internal_behavior(const json& behavior) {
  OrderedJson out = OrderedJson::object();
  out["ScaleUp"] = internal_rules(member(behavior, "scaleUp"));
  out["ScaleDown"] = internal_rules(member(behavior, "scaleDown"));
  return out;
}

OrderedJson v1_condition(const json& condition) {
  OrderedJson out = OrderedJson::object();
  out["type"] = member_or(condition, "type", kEmptyString);
  out["status"] = member_or(condition, "status", kEmptyString);
  // metav1.Time is a struct: omitempty never drops it, and its zero value writes null.
  out["lastTransitionTime"] = member_or(condition, "lastTransitionTime", kNull);
  for (const char* key : {"reason", "message"}) {
    if (const json* v = member(condition, key); v != nullptr && *v != kEmptyString) {
      out[key] = *v;
    }
  }
  return out;
}

std::string go_marshal(const OrderedJson& value) {
  return go_json_escape(value.dump(-1, ' ', false, OrderedJson::error_handler_t::replace));
}

// ---- reading annotations (as strict as Go's typed decode) ----
namespace {

// The member whose key equals `key` exactly, else ignoring ASCII case (encoding/json's rule);
// nullptr when absent or null (null leaves a Go field at its zero value).
const json* field(const json& obj, std::string_view key) {
  if (!obj.is_object()) {
    return nullptr;
  }
  auto it = obj.find(key);
  if (it == obj.end()) {
    for (auto i = obj.begin(); i != obj.end(); ++i) {
      const std::string& k = i.key();
      if (k.size() != key.size()) {
        continue;
      }
      bool same = true;
      for (size_t n = 0; n < k.size() && same; ++n) {
        auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
        same = lower(k[n]) == lower(key[n]);
      }
      if (same) {
        it = i;
        break;
      }
    }
  }
  return it == obj.end() || it->is_null() ? nullptr : &*it;
}

// One decode: `ok` turns false at the first value Go would refuse.
struct Decoder {
  bool ok = true;

  bool object_or_null(const json& v) { return check(v.is_object() || v.is_null()); }
  bool check(bool good) {
    ok = ok && good;
    return good;
  }
  // A string field; "" when absent.
  json string(const json& obj, std::string_view key) {
    const json* v = field(obj, key);
    if (v == nullptr) {
      return "";
    }
    check(v->is_string());
    return *v;
  }
  // An int32 field, or nullptr when absent.
  json int32(const json& obj, std::string_view key) {
    const json* v = field(obj, key);
    if (v == nullptr) {
      return nullptr;
    }
    bool good = v->is_number_integer();
    if (good && v->is_number_unsigned()) {
      good = v->get<uint64_t>() <= INT32_MAX;
    } else if (good) {
      const int64_t n = v->get<int64_t>();
      good = n >= INT32_MIN && n <= INT32_MAX;
    }
    check(good);
    return *v;
  }
  // A resource.Quantity (or *Quantity) field, or nullptr when absent.
  json quantity(const json& obj, std::string_view key) {
    const json* v = field(obj, key);
    if (v == nullptr) {
      return nullptr;
    }
    if (v->is_string()) {
      check(!go_quantity_error(v->get_ref<const std::string&>()).has_value());
    } else {
      check(v->is_number() && !go_quantity_error(v->dump()).has_value());
    }
    return *v;
  }
  json time(const json& obj, std::string_view key) {
    const json* v = field(obj, key);
    if (v == nullptr) {
      return nullptr;
    }
    check(v->is_string() && !go_time_error(v->get_ref<const std::string&>(), false).has_value());
    return *v;
  }
  // A *metav1.LabelSelector field, or nullptr when absent.
  json selector(const json& obj, std::string_view key) {
    const json* v = field(obj, key);
    if (v == nullptr || !object_or_null(*v)) {
      return nullptr;
    }
    if (const json* labels = field(*v, "matchLabels"); labels != nullptr) {
      if (object_or_null(*labels)) {
        for (const auto& item : labels->items()) {
          check(item.value().is_string() || item.value().is_null());
        }
      }
    }
    if (const json* exprs = field(*v, "matchExpressions"); exprs != nullptr) {
      if (check(exprs->is_array())) {
        for (const json& e : *exprs) {
          object_or_null(e);
          string(e, "key");
          string(e, "operator");
          if (const json* values = field(e, "values");
              values != nullptr && check(values->is_array())) {
            for (const json& s : *values) {
              check(s.is_string() || s.is_null());
            }
          }
        }
      }
    }
    return *v;
  }
  // The sub-object `key` when present (checked to be an object), else nullptr.
  const json* nested(const json& obj, std::string_view key) {
    const json* v = field(obj, key);
    return v != nullptr && object_or_null(*v) ? v : nullptr;
  }
};

const json kNoObject = json::object();

// v1 CrossVersionObjectReference -> v2's.
json reference(Decoder& d, const json* ref) {
  const json& r = ref != nullptr ? *ref : kNoObject;
  json out = {{"kind", d.string(r, "kind")}, {"name", d.string(r, "name")}};
  if (json api = d.string(r, "apiVersion"); api != "") {
    out["apiVersion"] = std::move(api);
  }
  return out;
}

json identifier(Decoder& d, const json& src, std::string_view selector_key) {
  json out = {{"name", d.string(src, "metricName")}};
  if (json sel = d.selector(src, selector_key); !sel.is_null()) {
    out["selector"] = std::move(sel);
  }
  return out;
}

void put(json& out, const char* key, json value) {
  if (!value.is_null()) {
    out[key] = std::move(value);
  }
}

// v1 MetricSpec -> v2 MetricSpec.
json metric_spec(Decoder& d, const json& m) {
  d.object_or_null(m);
  json out = {{"type", d.string(m, "type")}};
  if (const json* src = d.nested(m, "object"); src != nullptr) {
    json value = d.quantity(*src, "targetValue");
    json average = d.quantity(*src, "averageValue");
    json target = {{"type", average.is_null() ? "Value" : "AverageValue"},
                   {"value", value.is_null() ? kZeroQuantity : value}};
    put(target, "averageValue", std::move(average));
    out["object"] = {{"describedObject", reference(d, d.nested(*src, "target"))},
                     {"metric", identifier(d, *src, "selector")},
                     {"target", std::move(target)}};
  }
  if (const json* src = d.nested(m, "pods"); src != nullptr) {
    json average = d.quantity(*src, "targetAverageValue");
    out["pods"] = {{"metric", identifier(d, *src, "selector")},
                   {"target",
                    {{"type", "AverageValue"},
                     {"averageValue", average.is_null() ? kZeroQuantity : average}}}};
  }
  for (const char* key : {"resource", "containerResource"}) {
    if (const json* src = d.nested(m, key); src != nullptr) {
      json utilization = d.int32(*src, "targetAverageUtilization");
      json target = {{"type", utilization.is_null() ? "AverageValue" : "Utilization"}};
      put(target, "averageUtilization", std::move(utilization));
      put(target, "averageValue", d.quantity(*src, "targetAverageValue"));
      json o = {{"name", d.string(*src, "name")}, {"target", std::move(target)}};
      if (std::string_view(key) == "containerResource") {
        o["container"] = d.string(*src, "container");
      }
      out[key] = std::move(o);
    }
  }
  if (const json* src = d.nested(m, "external"); src != nullptr) {
    json value = d.quantity(*src, "targetValue");
    json target = {{"type", value.is_null() ? "AverageValue" : "Value"}};
    put(target, "value", std::move(value));
    put(target, "averageValue", d.quantity(*src, "targetAverageValue"));
    out["external"] = {{"metric", identifier(d, *src, "metricSelector")},
                       {"target", std::move(target)}};
  }
  return out;
}

// v1 MetricStatus -> v2 MetricStatus.
json metric_status(Decoder& d, const json& m) {
  d.object_or_null(m);
  json out = {{"type", d.string(m, "type")}};
  auto or_zero = [](json q) { return q.is_null() ? kZeroQuantity : q; };
  if (const json* src = d.nested(m, "object"); src != nullptr) {
    json current = {{"value", or_zero(d.quantity(*src, "currentValue"))}};
    put(current, "averageValue", d.quantity(*src, "averageValue"));
    out["object"] = {{"describedObject", reference(d, d.nested(*src, "target"))},
                     {"metric", identifier(d, *src, "selector")},
                     {"current", std::move(current)}};
  }
  if (const json* src = d.nested(m, "pods"); src != nullptr) {
    out["pods"] = {
        {"metric", identifier(d, *src, "selector")},
        {"current", {{"averageValue", or_zero(d.quantity(*src, "currentAverageValue"))}}}};
  }
  for (const char* key : {"resource", "containerResource"}) {
    if (const json* src = d.nested(m, key); src != nullptr) {
      json current = {{"averageValue", or_zero(d.quantity(*src, "currentAverageValue"))}};
      put(current, "averageUtilization", d.int32(*src, "currentAverageUtilization"));
      json o = {{"name", d.string(*src, "name")}, {"current", std::move(current)}};
      if (std::string_view(key) == "containerResource") {
        o["container"] = d.string(*src, "container");
      }
      out[key] = std::move(o);
    }
  }
  if (const json* src = d.nested(m, "external"); src != nullptr) {
    json current = {{"value", or_zero(d.quantity(*src, "currentValue"))}};
    put(current, "averageValue", d.quantity(*src, "currentAverageValue"));
    out["external"] = {{"metric", identifier(d, *src, "metricSelector")},
                       {"current", std::move(current)}};
  }
  return out;
}

std::optional<json> parse(const std::string& text) {
  if (json_text_depth(text) > kMaxAnnotationDepth) {
    return std::nullopt;
  }
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded()) {
    return std::nullopt;
  }
  return doc;
}

template <typename Item>
std::optional<json> decode_list(const std::string& text, Item item) {
  std::optional<json> doc = parse(text);
  if (!doc || !(doc->is_array() || doc->is_null())) {
    return std::nullopt;
  }
  Decoder d;
  json out = json::array();
  if (doc->is_array()) {
    for (const json& m : *doc) {
      out.push_back(item(d, m));
    }
  }
  return d.ok ? std::optional<json>(std::move(out)) : std::nullopt;
}

json rules(Decoder& d, const json* r) {
  if (r == nullptr) {
    return nullptr;
  }
  json out = json::object();
  put(out, "stabilizationWindowSeconds", d.int32(*r, "StabilizationWindowSeconds"));
  if (const json* policy = field(*r, "SelectPolicy"); policy != nullptr) {
    d.check(policy->is_string());
    out["selectPolicy"] = *policy;
  }
  if (const json* policies = field(*r, "Policies");
      policies != nullptr && d.check(policies->is_array())) {
    json list = json::array();
    for (const json& p : *policies) {
      d.object_or_null(p);
      json value = d.int32(p, "Value");
      json period = d.int32(p, "PeriodSeconds");
      list.push_back({{"type", d.string(p, "Type")},
                      {"value", value.is_null() ? kZero : value},
                      {"periodSeconds", period.is_null() ? kZero : period}});
    }
    if (!list.empty()) {
      out["policies"] = std::move(list);
    }
  }
  return out;
}

}  // namespace

std::optional<json> decode_metric_specs(const std::string& text) {
  return decode_list(text, metric_spec);
}

std::optional<json> decode_metric_statuses(const std::string& text) {
  return decode_list(text, metric_status);
}

std::optional<json> decode_conditions(const std::string& text) {
  return decode_list(text, [](Decoder& d, const json& c) {
    d.object_or_null(c);
    json out = {{"type", d.string(c, "type")}, {"status", d.string(c, "status")}};
    put(out, "lastTransitionTime", d.time(c, "lastTransitionTime"));
    for (const char* key : {"reason", "message"}) {
      if (json v = d.string(c, key); v != "") {
        out[key] = std::move(v);
      }
    }
    return out;
  });
}

std::optional<json> decode_behavior(const std::string& text) {
  std::optional<json> doc = parse(text);
  if (!doc) {
    return std::nullopt;
  }
  Decoder d;
  d.object_or_null(*doc);
  json up = rules(d, d.nested(*doc, "ScaleUp"));
  json down = rules(d, d.nested(*doc, "ScaleDown"));
  if (!d.ok) {
    return std::nullopt;
  }
  if (up.is_null() && down.is_null()) {
    return json(nullptr);
  }
  json out = json::object();
  put(out, "scaleUp", std::move(up));
  put(out, "scaleDown", std::move(down));
  return out;
}

}  // namespace apiserver::registry::hpa_annotations
