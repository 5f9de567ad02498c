// The continue token of paged lists, as kube-apiserver encodes it: base64url without padding of
// {"v":"meta.k8s.io/v1","rv":<list revision>,"start":"<key after the prefix>"}. Decoding is
// typed, and every token that is not one answers with upstream's text:
//
//   continue key is not valid: illegal base64 data at input byte 3
//   continue key is not valid: json: cannot unmarshal string into Go struct field
//     continueToken.rv of type int64
//   continue key is not valid: server does not recognize this encoded version v2
//   continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)
//   continue key is not valid: encoded start key empty (version meta.k8s.io/v1)
//   continue key is not valid: ../x                (a start key that leaves the list's prefix)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.h"

namespace apiserver::endpoints {

std::string encode_continue(int64_t revision, std::string_view start);

struct ContinueToken {
  // The revision to read at; 0 when the token's is negative (upstream then reads the newest).
  int64_t revision = 0;
  std::string start_key;  // the full key to resume at: key_prefix + the token's start
};

// The error is upstream's text (see above; the handler prefixes it with
// "invalid continue token: ").
common::Result<ContinueToken> decode_continue(std::string_view token,
                                              const std::string& key_prefix);

}  // namespace apiserver::endpoints
