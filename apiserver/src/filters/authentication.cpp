#include "filters/authentication.h"

#include <algorithm>

namespace apiserver::filters {

std::optional<UserInfo> authenticate(const http::Request& request, const TokenTable& tokens) {
  if (const auto& cert = request.client_certificate; cert && !cert->common_name.empty()) {
    UserInfo user{cert->common_name, cert->organizations};
    user.groups.push_back("system:authenticated");
    return user;
  }
  std::string authorization = request.header("Authorization");
  if (!authorization.empty()) {
    const std::string bearer = "Bearer ";
    if (authorization.size() <= bearer.size() ||
        !std::equal(bearer.begin(), bearer.end(), authorization.begin(),
                    [](char a, char b) { return std::tolower(a) == std::tolower(b); })) {
      return std::nullopt;
    }
    auto it = tokens.find(authorization.substr(bearer.size()));
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
