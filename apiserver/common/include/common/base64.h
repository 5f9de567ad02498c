// Base64 (RFC 4648) in the variants the tree reads and writes. Encoding is one function per
// alphabet; decoding differs on purpose by what the caller must accept:
//
//   base64_decode          strict: standard alphabet, '=' padding required, no other byte
//   base64_decode_lenient  as strict, but ASCII whitespace anywhere is skipped (text pasted into
//                          a kubeconfig's *-data field)
//   go_base64_decode       Go's encoding/base64 DecodeString (StdEncoding or RawURLEncoding):
//                          skips '\r' and '\n' only, and reports Go's error text and offset
//
// All decoders ignore non-zero bits left over in the last character ("QR==" decodes as "A"), as
// Go's non-strict encodings and OpenSSL do. All functions are pure and thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace common {

// The standard alphabet ('+', '/') with '=' padding: Go's base64.StdEncoding, Kubernetes' []byte
// fields, etcdctl's JSON keys and values.
std::string base64_encode(std::string_view bytes);

// The URL alphabet ('-', '_') without padding: Go's base64.RawURLEncoding (continue tokens).
std::string base64url_encode_raw(std::string_view bytes);

// The bytes of `text` in the standard alphabet with padding; nullopt for anything else
// (whitespace, a missing or misplaced '=', a length that is not a multiple of 4).
std::optional<std::string> base64_decode(std::string_view text);

// As base64_decode, but the six ASCII whitespace characters (" \t\n\v\f\r") are skipped wherever
// they stand.
std::optional<std::string> base64_decode_lenient(std::string_view text);

enum class GoBase64 {
  Std,     // base64.StdEncoding: '+', '/', padding required
  RawUrl,  // base64.RawURLEncoding: '-', '_', no padding ('=' is an illegal byte)
};

struct GoBase64Decoded {
  std::string bytes;  // empty on failure
  // Empty when `text` decoded; otherwise Go's CorruptInputError text,
  // "illegal base64 data at input byte N", with N as Go computes it.
  std::string error;
};

// Go's Encoding.DecodeString for `encoding`.
GoBase64Decoded go_base64_decode(std::string_view text, GoBase64 encoding);

}  // namespace common
