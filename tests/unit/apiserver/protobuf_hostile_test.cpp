// Mutated kubectl bodies through the protobuf decoder: whatever the bytes, it answers with an
// object or a "protobuf: " error, never an exception or a crash. Deterministic (a fixed LCG).
#include <catch2/catch.hpp>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "protobuf/decode.h"

using apiserver::protobuf::decode_k8s_protobuf;

namespace {

std::string read_body(const std::string& name) {
  std::ifstream in(std::string(KS_APISERVER_TEST_DATA) + "/protobuf/" + name, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Decodes `body`; fails the test unless the answer is an object or a "protobuf: " error.
void check_decodes_or_fails_cleanly(const std::string& body) {
  std::optional<common::Result<nlohmann::json>> decoded;
  REQUIRE_NOTHROW(decoded.emplace(decode_k8s_protobuf(body)));
  if (*decoded) {
    REQUIRE((*decoded)->is_object());
    REQUIRE_NOTHROW((*decoded)->dump());
  } else {
    REQUIRE(decoded->error().rfind("protobuf: ", 0) == 0);
  }
}

}  // namespace

TEST_CASE("mutated protobuf bodies decode or fail with a protobuf error", "[protobuf][hostile]") {
  const std::string name = GENERATE(as<std::string>{}, "configmap_file", "deployment", "cronjob",
                                    "service_named", "pdb", "role");
  CAPTURE(name);
  const std::string original = read_body(name + ".pb");
  REQUIRE(original.size() > 8);
  std::uint64_t state = 0x9E3779B97F4A7C15ULL;
  auto next = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  };
  for (std::size_t cut = 0; cut < original.size(); ++cut) {
    check_decodes_or_fails_cleanly(original.substr(0, cut));
  }
  for (int round = 0; round < 2000; ++round) {
    std::string body = original;
    const int edits = 1 + static_cast<int>(next() % 4);
    for (int e = 0; e < edits; ++e) {
      // Past the magic, so the mutation reaches the messages.
      const std::size_t at = 4 + next() % (body.size() - 4);
      switch (next() % 4) {
        case 0:
          body[at] = static_cast<char>(next());
          break;
        case 1:
          body[at] = static_cast<char>(0xFF);  // a varint that never ends
          break;
        case 2:
          body.insert(at, body.substr(at, next() % 64));  // repeated fields and messages
          break;
        default:
          body.erase(at, 1 + next() % 8);
          break;
      }
    }
    CAPTURE(round);
    check_decodes_or_fails_cleanly(body);
  }
}
