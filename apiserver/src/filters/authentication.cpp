#include "filters/authentication.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cctype>

namespace apiserver::filters {

namespace {

TokenTable::Digest digest_of(std::string_view token) {
  TokenTable::Digest digest{};
  SHA256(reinterpret_cast<const unsigned char*>(token.data()), token.size(), digest.data());
  return digest;
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

// The token of an "Authorization: Bearer <token>" header as upstream's bearer token
// authenticator reads it (trimmed, split on single spaces, scheme case-insensitive), or
// nullopt when the header offers no bearer token at all.
std::optional<std::string_view> bearer_token(std::string_view header) {
  while (!header.empty() && is_space(header.front())) {
    header.remove_prefix(1);
  }
  while (!header.empty() && is_space(header.back())) {
    header.remove_suffix(1);
  }
  size_t space = header.find(' ');
  if (space == std::string_view::npos) {
    return std::nullopt;
  }
  std::string_view scheme = header.substr(0, space);
  static constexpr std::string_view kBearer = "bearer";
  if (scheme.size() != kBearer.size() ||
      !std::equal(scheme.begin(), scheme.end(), kBearer.begin(), [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(a)) == b;
      })) {
    return std::nullopt;
  }
  std::string_view token = header.substr(space + 1);
  token = token.substr(0, token.find(' '));
  if (token.empty()) {
    return std::nullopt;  // "Bearer  x": an empty token is no token
  }
  return token;
}

}  // namespace

void TokenTable::set(std::string_view token, UserInfo user) {
  Digest digest = digest_of(token);
  for (auto& entry : entries_) {
    if (entry.first == digest) {
      entry.second = std::move(user);
      return;
    }
  }
  entries_.emplace_back(digest, std::move(user));
}

TokenTable::const_iterator TokenTable::find(std::string_view token) const {
  const Digest digest = digest_of(token);
  size_t match = entries_.size();
  // Every entry is compared in full, and the result is picked without a branch on it.
  for (size_t i = 0; i < entries_.size(); ++i) {
    size_t equal = static_cast<size_t>(
        CRYPTO_memcmp(entries_[i].first.data(), digest.data(), digest.size()) == 0);
    match ^= (match ^ i) & (0 - equal);
  }
  return entries_.begin() + static_cast<std::ptrdiff_t>(match);
}

std::optional<UserInfo> authenticate(const http::Request& request, const TokenTable& tokens) {
  if (const auto& cert = request.client_certificate; cert && !cert->common_name.empty()) {
    UserInfo user{cert->common_name, cert->organizations};
    user.groups.push_back("system:authenticated");
    return user;
  }
  const std::string authorization = request.header("Authorization");
  if (auto token = bearer_token(authorization)) {
    auto it = tokens.find(*token);
    if (it == tokens.end()) {
      return std::nullopt;
    }
    UserInfo user = it->second;
    user.groups.push_back("system:authenticated");
    return user;
  }
  return UserInfo{"system:anonymous", {"system:unauthenticated"}};
}

bool is_anonymous(const UserInfo& user) {
  return user.name == "system:anonymous";
}

bool is_public_info_path(const std::string& path) {
  for (const char* root : {"/healthz", "/livez", "/readyz"}) {
    std::string r = root;
    if (path == r || path.rfind(r + "/", 0) == 0) {
      return true;
    }
  }
  return path == "/version" || path == "/version/";
}

namespace {

// One CSV record as Go's encoding/csv reads it (RFC 4180 quoting, no trimming); `line` is the
// record's first line. Returns false with `error` set on a quoting error.
bool read_csv_record(const std::string& text, size_t& pos, int& line,
                     std::vector<std::string>& record, std::string& error) {
  record.assign(1, std::string());
  int start_line = line;
  bool quoted = false;
  bool field_start = true;
  while (pos < text.size()) {
    char c = text[pos];
    if (quoted) {
      if (c == '"') {
        if (pos + 1 < text.size() && text[pos + 1] == '"') {
          record.back() += '"';
          pos += 2;
          continue;
        }
        quoted = false;
        ++pos;
        if (pos < text.size() && text[pos] != ',' && text[pos] != '\n' && text[pos] != '\r') {
          error = "parse error on line " + std::to_string(line) +
                  ": extraneous or missing \" in quoted-field";
          return false;
        }
        continue;
      }
      if (c == '\n') {
        ++line;
      }
      record.back() += c;
      ++pos;
      continue;
    }
    if (c == '"') {
      if (!field_start) {
        error = "parse error on line " + std::to_string(line) + ": bare \" in non-quoted-field";
        return false;
      }
      quoted = true;
      field_start = false;
      ++pos;
      continue;
    }
    if (c == ',') {
      record.emplace_back();
      field_start = true;
      ++pos;
      continue;
    }
    if (c == '\r' && pos + 1 < text.size() && text[pos + 1] == '\n') {
      ++pos;
      continue;
    }
    if (c == '\n') {
      ++pos;
      ++line;
      return true;
    }
    record.back() += c;
    field_start = false;
    ++pos;
  }
  if (quoted) {
    error = "parse error on line " + std::to_string(start_line) +
            ": extraneous or missing \" in quoted-field";
    return false;
  }
  return true;
}

}  // namespace

bool parse_token_auth_file(
    const std::string& text, const std::string& file_name,
    std::map<std::string, std::pair<std::string, std::vector<std::string>>>& tokens,
    std::vector<std::string>& warnings, std::string& error) {
  size_t pos = 0;
  int line = 1;
  int record_number = 0;
  std::vector<std::string> record;
  while (pos < text.size()) {
    if (text[pos] == '\n' ||
        (text[pos] == '\r' && pos + 1 < text.size() && text[pos + 1] == '\n')) {
      pos += text[pos] == '\n' ? 1 : 2;  // blank lines are skipped
      ++line;
      continue;
    }
    if (!read_csv_record(text, pos, line, record, error)) {
      error = "token file '" + file_name + "': " + error;
      return false;
    }
    if (record.size() < 3) {
      error = "token file '" + file_name +
              "' must have at least 3 columns (token, user name, user uid), found " +
              std::to_string(record.size());
      return false;
    }
    ++record_number;
    if (record[0].empty()) {
      warnings.push_back("empty token has been found in token file '" + file_name +
                         "', record number '" + std::to_string(record_number) + "'");
      continue;
    }
    if (tokens.count(record[0]) != 0) {
      warnings.push_back("duplicate token has been found in token file '" + file_name +
                         "', record number '" + std::to_string(record_number) + "'");
    }
    std::vector<std::string> groups;
    if (record.size() >= 4) {
      size_t start = 0;
      while (true) {
        size_t comma = record[3].find(',', start);
        groups.push_back(record[3].substr(start, comma - start));
        if (comma == std::string::npos) {
          break;
        }
        start = comma + 1;
      }
    }
    tokens[record[0]] = {record[1], groups};
  }
  return true;
}

}  // namespace apiserver::filters
