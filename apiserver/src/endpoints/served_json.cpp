#include "endpoints/served_json.h"

#include <cstring>

namespace apiserver::endpoints {
namespace {

constexpr int kMaxDepth = 512;
constexpr std::string_view kResourceVersion = "resourceVersion";

// Walks compact JSON text. Every method leaves `pos` just after what it read and returns false
// on anything that is not compact JSON (whitespace outside strings included: such text was not
// written by dump(), so copying its spans would not give dump()'s bytes).
class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  bool at(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  bool eat(char c) {
    if (!at(c)) {
      return false;
    }
    ++pos_;
    return true;
  }
  bool done() const { return pos_ == text_.size(); }
  size_t pos() const { return pos_; }
  std::string_view span(size_t from) const { return text_.substr(from, pos_ - from); }

  // A string; `plain` tells whether it had no escapes.
  bool string(bool& plain) {
    plain = true;
    if (!eat('"')) {
      return false;
    }
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (c == '\\') {
        plain = false;
        pos_ += 2;
        continue;
      }
      if (static_cast<unsigned char>(c) < 0x20) {
        return false;
      }
      ++pos_;
    }
    return false;
  }

  // A key without escapes and its colon; `key` is its text without the quotes.
  bool key(std::string_view& key) {
    size_t start = pos_;
    bool plain = false;
    if (!string(plain) || !plain || !eat(':')) {
      return false;
    }
    key = text_.substr(start + 1, pos_ - start - 3);
    return true;
  }

  bool value() { return value(0); }

 private:
  bool value(int depth) {
    if (pos_ >= text_.size()) {
      return false;
    }
    char c = text_[pos_];
    if (c == '"') {
      bool plain = false;
      return string(plain);
    }
    if (c == '{' || c == '[') {
      if (depth >= kMaxDepth) {
        return false;
      }
      char close = c == '{' ? '}' : ']';
      ++pos_;
      if (eat(close)) {
        return true;
      }
      while (true) {
        bool plain = false;
        if (c == '{' && (!string(plain) || !eat(':'))) {
          return false;
        }
        if (!value(depth + 1)) {
          return false;
        }
        if (eat(',')) {
          continue;
        }
        return eat(close);
      }
    }
    for (std::string_view word : {"true", "false", "null"}) {
      if (text_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        return true;
      }
    }
    size_t start = pos_;
    while (pos_ < text_.size() && std::strchr("0123456789+-.eE", text_[pos_]) != nullptr &&
           text_[pos_] != '\0') {
      ++pos_;
    }
    return pos_ > start;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

// Copies the metadata object at the scanner's position, with resourceVersion among its keys.
bool copy_metadata(Scanner& scan, const std::string& version, std::string& out) {
  if (!scan.eat('{')) {
    return false;
  }
  out += '{';
  bool first = true;
  bool inserted = false;
  auto put_version = [&] {
    out += first ? "\"" : ",\"";
    out += kResourceVersion;
    out += "\":\"";
    out += version;
    out += '"';
    first = false;
    inserted = true;
  };
  if (!scan.eat('}')) {
    while (true) {
      size_t start = scan.pos();
      std::string_view key;
      if (!scan.key(key) || !scan.value()) {
        return false;
      }
      if (key != kResourceVersion) {  // a stored one is replaced by the store revision
        if (!inserted && key > kResourceVersion) {
          put_version();
        }
        if (!first) {
          out += ',';
        }
        out += scan.span(start);
        first = false;
      }
      if (scan.eat(',')) {
        continue;
      }
      if (!scan.eat('}')) {
        return false;
      }
      break;
    }
  }
  if (!inserted) {
    put_version();
  }
  out += '}';
  return true;
}

}  // namespace

bool append_served_json(std::string_view stored, int64_t revision, bool drop_type_meta,
                        std::string& out) {
  const size_t mark = out.size();
  auto fail = [&] {
    out.resize(mark);
    return false;
  };
  Scanner scan(stored);
  if (!scan.eat('{') || scan.at('}')) {
    return fail();
  }
  out += '{';
  bool first = true;
  bool saw_metadata = false;
  const std::string version = std::to_string(revision);
  while (true) {
    size_t start = scan.pos();
    std::string_view key;
    if (!scan.key(key)) {
      return fail();
    }
    if (key == "metadata") {
      if (saw_metadata) {
        return fail();
      }
      saw_metadata = true;
      out += first ? "\"metadata\":" : ",\"metadata\":";
      if (!copy_metadata(scan, version, out)) {
        return fail();
      }
      first = false;
    } else {
      if (!scan.value()) {
        return fail();
      }
      if (!(drop_type_meta && (key == "apiVersion" || key == "kind"))) {
        if (!first) {
          out += ',';
        }
        out += scan.span(start);
        first = false;
      }
    }
    if (scan.eat(',')) {
      continue;
    }
    if (!scan.eat('}') || !scan.done() || !saw_metadata) {
      return fail();
    }
    break;
  }
  out += '}';
  return true;
}

std::optional<std::string> served_json(std::string_view stored, int64_t revision,
                                       bool drop_type_meta) {
  std::string out;
  out.reserve(stored.size() + 32);
  if (!append_served_json(stored, revision, drop_type_meta, out)) {
    return std::nullopt;
  }
  return out;
}

}  // namespace apiserver::endpoints
