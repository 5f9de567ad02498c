#include "endpoints/continue_token.h"

#include <charconv>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/base64.h"
#include "endpoints/go_json_syntax.h"

namespace apiserver::endpoints {
namespace {

using nlohmann::json;

constexpr const char* kInvalid = "continue key is not valid";
constexpr const char* kVersion = "meta.k8s.io/v1";

// One top-level member of the token as encoding/json meets it: the JSON kind word and, for
// strings and numbers, the text (a number's literal as written).
struct Member {
  std::string word;  // "string", "number", "bool", "null", "object", "array"
  std::string text;
};

// Collects the top-level members of an object without building the document; nested values are
// only counted. Keys repeat as encoding/json treats them: the last one wins.
class TopLevelMembers : public nlohmann::json_sax<json> {
 public:
  bool null() override { return scalar("null", ""); }
  bool boolean(bool) override { return scalar("bool", ""); }
  bool number_integer(number_integer_t v) override { return scalar("number", std::to_string(v)); }
  bool number_unsigned(number_unsigned_t v) override { return scalar("number", std::to_string(v)); }
  bool number_float(number_float_t, const string_t& s) override { return scalar("number", s); }
  bool string(string_t& s) override { return scalar("string", s); }
  bool binary(binary_t&) override { return scalar("string", ""); }
  bool start_object(std::size_t) override { return open("object"); }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open("array"); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    if (depth_ == 1) {
      key_ = k;
    }
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

  std::string top_word;  // the document's own kind
  std::vector<std::pair<std::string, Member>> members;

 private:
  bool scalar(const char* word, std::string text) {
    if (depth_ == 0) {
      top_word = word;
    } else if (depth_ == 1) {
      members.emplace_back(key_, Member{word, std::move(text)});
    }
    return true;
  }
  bool open(const char* word) {
    if (depth_ == 0) {
      top_word = word;
    } else if (depth_ == 1) {
      members.emplace_back(key_, Member{word, ""});
    }
    ++depth_;
    return true;
  }
  bool close() {
    --depth_;
    return true;
  }

  size_t depth_ = 0;
  std::string key_;
};

bool equal_fold(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) {
    return false;
  }
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

// path.Clean of a rooted path: no ".", "..", empty or trailing elements.
bool is_clean_rooted(std::string_view key) {
  if (key == "/") {
    return true;
  }
  if (key.size() < 2 || key.back() == '/') {
    return false;
  }
  size_t start = 1;
  while (start <= key.size()) {
    size_t end = key.find('/', start);
    if (end == std::string_view::npos) {
      end = key.size();
    }
    std::string_view element = key.substr(start, end - start);
    if (element.empty() || element == "." || element == "..") {
      return false;
    }
    start = end + 1;
  }
  return true;
}

}  // namespace

std::string encode_continue(int64_t revision, std::string_view start) {
  return common::base64url_encode_raw(
      json{{"v", kVersion}, {"rv", revision}, {"start", std::string(start)}}.dump());
}

common::Result<ContinueToken> decode_continue(std::string_view token,
                                              const std::string& key_prefix) {
  auto fail = [](const std::string& why) -> common::Result<ContinueToken> {
    return why.empty() ? std::string(kInvalid) : std::string(kInvalid) + why;
  };
  const auto data = common::go_base64_decode(token, common::GoBase64::RawUrl);
  if (!data.error.empty()) {
    return fail(": " + data.error);
  }
  if (auto syntax = go_json_syntax_error(data.bytes)) {
    return fail(": " + *syntax);
  }
  TopLevelMembers members;
  if (!json::sax_parse(data.bytes, &members)) {
    // Valid for Go's scanner, not for the parser (invalid UTF-8 in a string): not a token.
    return fail("");
  }
  if (members.top_word != "object" && members.top_word != "null") {
    return fail(": json: cannot unmarshal " + members.top_word +
                " into Go value of type storage.continueToken");
  }
  std::string version;
  int64_t rv = 0;
  std::string start;
  for (const auto& [key, member] : members.members) {
    const bool is_v = key == "v" || (key != "rv" && equal_fold(key, "v"));
    const bool is_rv = key == "rv" || equal_fold(key, "rv");
    const bool is_start = key == "start" || equal_fold(key, "start");
    if (!is_v && !is_rv && !is_start) {
      continue;
    }
    if (member.word == "null") {
      continue;
    }
    const char* field = is_v ? "v" : is_rv ? "rv" : "start";
    if (is_rv) {
      const char* first = member.text.data();
      const char* last = first + member.text.size();
      int64_t value = 0;
      auto [end, ec] = std::from_chars(first, last, value);
      if (member.word != "number" || ec != std::errc() || end != last) {
        return fail(": json: cannot unmarshal " +
                    (member.word == "number" ? "number " + member.text : member.word) +
                    " into Go struct field continueToken." + field + " of type int64");
      }
      rv = value;
      continue;
    }
    if (member.word != "string") {
      return fail(": json: cannot unmarshal " + member.word +
                  " into Go struct field continueToken." + field + " of type string");
    }
    (is_v ? version : start) = member.text;
  }
  if (version != kVersion) {
    return fail(": server does not recognize this encoded version " + version);
  }
  if (rv == 0) {
    return fail(": incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
  }
  if (start.empty()) {
    return fail(": encoded start key empty (version meta.k8s.io/v1)");
  }
  std::string key = start.front() == '/' ? start : "/" + start;
  if (!is_clean_rooted(key)) {
    return fail(": " + start);
  }
  return ContinueToken{rv > 0 ? rv : 0, key_prefix + key.substr(1)};
}

}  // namespace apiserver::endpoints
