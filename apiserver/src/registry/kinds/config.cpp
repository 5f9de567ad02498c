// ConfigMaps, Secrets and ServiceAccounts: data size and key rules, immutability, the Secret
// types' required keys, and their printers.
#include "registry/kinds/kinds.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "common/base64.h"
#include "registry/defaulting_fields.h"
#include "registry/go_text.h"
#include "registry/go_values.h"
#include "registry/print_cells.h"
#include "registry/table.h"
#include "registry/validation_rules.h"

namespace apiserver::registry::kinds {

namespace {

namespace validate {
using namespace rules;

size_t base64_decoded_size(const json& v) {
  if (!v.is_string()) {
    return 0;
  }
  const std::string& s = v.get_ref<const std::string&>();
  size_t padding = 0;
  for (auto it = s.rbegin(); it != s.rend() && *it == '='; ++it) {
    ++padding;
  }
  return s.size() / 4 * 3 - std::min(padding, s.size() / 4 * 3);
}

constexpr size_t kMaxDataSize = 1024 * 1024;

void validate_config_map(const json& obj, Errors& out) {
  size_t total = 0;
  const json& data = get(obj, "data");
  const json& binary = get(obj, "binaryData");
  if (data.is_object()) {
    for (auto it = data.begin(); it != data.end(); ++it) {
      for (const auto& msg : config_map_key_problems(it.key())) {
        out.push_back(invalid_value(key_of("data", it.key()), it.key(), msg));
      }
      total += it->is_string() ? it->get_ref<const std::string&>().size() : 0;
    }
  }
  if (binary.is_object()) {
    for (auto it = binary.begin(); it != binary.end(); ++it) {
      for (const auto& msg : config_map_key_problems(it.key())) {
        out.push_back(invalid_value(key_of("binaryData", it.key()), it.key(), msg));
      }
      if (data.is_object() && data.contains(it.key())) {
        out.push_back(invalid_value(key_of("binaryData", it.key()), it.key(),
                                    "duplicate of key present in data"));
      }
      total += base64_decoded_size(*it);
    }
  }
  if (total > kMaxDataSize) {
    // Upstream's path is the empty root path (text unverified).
    out.push_back(too_long("", kMaxDataSize));
  }
}

void validate_secret(const json& obj, Errors& out) {
  const json& data = get(obj, "data");
  size_t total = 0;
  if (data.is_object()) {
    for (auto it = data.begin(); it != data.end(); ++it) {
      for (const auto& msg : config_map_key_problems(it.key())) {
        out.push_back(invalid_value(key_of("data", it.key()), it.key(), msg));
      }
      total += base64_decoded_size(*it);
    }
  }
  if (total > kMaxDataSize) {
    out.push_back(too_long("data", kMaxDataSize));
  }
  auto has_key = [&](const char* key) { return data.is_object() && data.contains(key); };
  const std::string type = str(obj, "type");
  if (type == "kubernetes.io/service-account-token") {
    if (str(get(get(obj, "metadata"), "annotations"), "kubernetes.io/service-account.name")
            .empty()) {
      out.push_back(required_value("metadata.annotations[kubernetes.io/service-account.name]", ""));
    }
  } else if (type == "kubernetes.io/dockercfg" || type == "kubernetes.io/dockerconfigjson") {
    const char* key = type == "kubernetes.io/dockercfg" ? ".dockercfg" : ".dockerconfigjson";
    if (!has_key(key)) {
      out.push_back(required_value(key_of("data", key), ""));
    } else {
      // Go's encoding/json error text is approximated (text unverified).
      std::string decoded;
      const std::string encoded = data[key].is_string() ? data[key].get<std::string>() : "";
      static const std::string kAlphabet =
          "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
      int bits = 0;
      unsigned value = 0;
      for (char c : encoded) {
        const size_t pos = kAlphabet.find(c);
        if (pos == std::string::npos) {
          break;
        }
        value = (value << 6) | static_cast<unsigned>(pos);
        bits += 6;
        if (bits >= 8) {
          bits -= 8;
          decoded.push_back(static_cast<char>((value >> bits) & 0xff));
        }
      }
      if (!json::accept(decoded)) {
        out.push_back(invalid_value(key_of("data", key), "<secret contents redacted>",
                                    decoded.empty() ? "unexpected end of JSON input"
                                                    : "invalid character looking for beginning "
                                                      "of value"));
      }
    }
  } else if (type == "kubernetes.io/basic-auth") {
    if (!has_key("username") && !has_key("password")) {
      out.push_back(required_value("data[username]", ""));
      out.push_back(required_value("data[password]", ""));
    }
  } else if (type == "kubernetes.io/ssh-auth") {
    if (base64_decoded_size(get(data, "ssh-privatekey")) == 0) {
      out.push_back(required_value("data[ssh-privatekey]", ""));
    }
  } else if (type == "kubernetes.io/tls") {
    if (!has_key("tls.crt")) {
      out.push_back(required_value("data[tls.crt]", ""));
    }
    if (!has_key("tls.key")) {
      out.push_back(required_value("data[tls.key]", ""));
    }
  }
}

void validate_secret_update(const json& obj, const json& old, Errors& out) {
  if (str(obj, "type") != str(old, "type")) {
    out.push_back(invalid_value("type", str(obj, "type"), kImmutable));
  }
  validate_immutable_data(obj, old, {"data"}, out);
}

}  // namespace validate

namespace print {
using namespace cells;

json print_secret(const json& obj, const Context& c) {
  const json& data = at(obj, "data");
  return json::array({name_of(obj), str(at(obj, "type")),
                      static_cast<int64_t>(data.is_object() ? data.size() : 0), age(obj, c)});
}

json print_config_map(const json& obj, const Context& c) {
  int64_t n = 0;
  for (const char* key : {"data", "binaryData"}) {
    if (const json& m = at(obj, key); m.is_object()) {
      n += static_cast<int64_t>(m.size());
    }
  }
  return json::array({name_of(obj), n, age(obj, c)});
}

json print_service_account(const json& obj, const Context& c) {
  return json::array(
      {name_of(obj), static_cast<int64_t>(arr(at(obj, "secrets")).size()), age(obj, c)});
}

}  // namespace print

namespace defaulting {
using namespace fields;

void default_secret(json& secret) {
  default_string(secret, "type", "Opaque");
  auto string_data = secret.find("stringData");
  if (string_data == secret.end()) {
    return;
  }
  if (string_data->is_object()) {
    if (unset(secret, "data") || !secret["data"].is_object()) {
      secret["data"] = json::object();
    }
    for (auto it = string_data->begin(); it != string_data->end(); ++it) {
      if (it->is_string()) {
        secret["data"][it.key()] = common::base64_encode(it->get<std::string>());
      }
    }
  }
  secret.erase("stringData");
}

}  // namespace defaulting

}  // namespace

void add_config(Strategies& s) {
  s.push_back({.group = "",
               .kind = "ConfigMap",
               .validate = validate::validate_config_map,
               .validate_update =
                   [](const json& o, const json& old, Errors& e) {
                     rules::validate_immutable_data(o, old, {"data", "binaryData"}, e);
                   },
               .print = print::print_config_map});
  s.push_back({.group = "",
               .kind = "Secret",
               .defaults = [](json& o, const DefaultingContext&) { defaulting::default_secret(o); },
               .validate = validate::validate_secret,
               .validate_update = validate::validate_secret_update,
               .print = print::print_secret});
  s.push_back({.group = "", .kind = "ServiceAccount", .print = print::print_service_account});
}

}  // namespace apiserver::registry::kinds
