#include "apiserver/facts.h"

#include <cstddef>

// Defined in facts_blob.S: [begin, end) is the committed JSON file, byte for byte.
extern "C" {
extern const char ks_facts_resources_json_begin[];
extern const char ks_facts_resources_json_end[];
extern const char ks_facts_schemas_json_begin[];
extern const char ks_facts_schemas_json_end[];
extern const char ks_facts_proto_json_begin[];
extern const char ks_facts_proto_json_end[];
extern const char ks_facts_bootstrap_policy_json_begin[];
extern const char ks_facts_bootstrap_policy_json_end[];
}

namespace apiserver::facts {
namespace {

std::string_view blob(const char* begin, const char* end) {
  return {begin, static_cast<std::size_t>(end - begin)};
}

}  // namespace

std::string_view resources_json() {
  return blob(ks_facts_resources_json_begin, ks_facts_resources_json_end);
}

std::string_view schemas_json() {
  return blob(ks_facts_schemas_json_begin, ks_facts_schemas_json_end);
}

std::string_view proto_json() {
  return blob(ks_facts_proto_json_begin, ks_facts_proto_json_end);
}

std::string_view bootstrap_policy_json() {
  return blob(ks_facts_bootstrap_policy_json_begin, ks_facts_bootstrap_policy_json_end);
}

}  // namespace apiserver::facts
