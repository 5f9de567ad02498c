// The --token-auth-file's CSV, read as Go's encoding/csv reads it for kube-apiserver's tokenfile
// authenticator.
#include "apiserver/token_file.h"

#include <cstddef>
#include <string>
#include <vector>

namespace apiserver {
namespace {

// One CSV record as Go's encoding/csv reads it (RFC 4180 quoting, no trimming), from `pos` on;
// `pos` and `line` move past it. Fails on a quoting error.
common::Result<std::vector<std::string>> read_csv_record(const std::string& text, size_t& pos,
                                                         int& line) {
  std::vector<std::string> record(1);
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
          return "parse error on line " + std::to_string(line) +
                 ": extraneous or missing \" in quoted-field";
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
        return "parse error on line " + std::to_string(line) + ": bare \" in non-quoted-field";
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
      return record;
    }
    record.back() += c;
    field_start = false;
    ++pos;
  }
  if (quoted) {
    return "parse error on line " + std::to_string(start_line) +
           ": extraneous or missing \" in quoted-field";
  }
  return record;
}

}  // namespace

common::Result<TokenFile> parse_token_auth_file(const std::string& text,
                                                const std::string& file_name) {
  TokenFile file;
  size_t pos = 0;
  int line = 1;
  int record_number = 0;
  while (pos < text.size()) {
    if (text[pos] == '\n' ||
        (text[pos] == '\r' && pos + 1 < text.size() && text[pos + 1] == '\n')) {
      pos += text[pos] == '\n' ? 1 : 2;  // blank lines are skipped
      ++line;
      continue;
    }
    auto read = read_csv_record(text, pos, line);
    if (!read) {
      return "token file '" + file_name + "': " + read.error();
    }
    const std::vector<std::string>& record = *read;
    if (record.size() < 3) {
      return "token file '" + file_name +
             "' must have at least 3 columns (token, user name, user uid), found " +
             std::to_string(record.size());
    }
    ++record_number;
    if (record[0].empty()) {
      file.warnings.push_back("empty token has been found in token file '" + file_name +
                              "', record number '" + std::to_string(record_number) + "'");
      continue;
    }
    if (file.tokens.count(record[0]) != 0) {
      file.warnings.push_back("duplicate token has been found in token file '" + file_name +
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
    file.tokens[record[0]] = {record[1], groups};
  }
  return file;
}

}  // namespace apiserver
