// The --token-auth-file: kube-apiserver's static bearer tokens, one CSV record a line
// (`token,user,uid[,"g1,g2"]`), read as its tokenfile authenticator reads them.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"

namespace apiserver {

// Bearer tokens and whom they stand for: token -> (user name, groups).
using TokenMap = std::map<std::string, std::pair<std::string, std::vector<std::string>>>;

struct TokenFile {
  TokenMap tokens;
  // One per record skipped for an empty token or replacing an earlier one with the same token,
  // in kube-apiserver's words, for the caller to log.
  std::vector<std::string> warnings;
};

// Parses the file's `text`; `file_name` is only for the messages. Fails with a message naming
// the line of a malformed record (a quoting error, fewer than 3 columns).
common::Result<TokenFile> parse_token_auth_file(const std::string& text,
                                                const std::string& file_name);

}  // namespace apiserver
