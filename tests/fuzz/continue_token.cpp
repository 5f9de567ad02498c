// The `continue` parameter of a LIST: the input is the token as sent, or, when it starts with
// '~', the rest is base64-encoded first, so that mutations reach the JSON inside a token.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <openssl/evp.h>

#include "support/api_harness.h"
#include "support/framed_request.h"

namespace {

std::string base64(std::string_view in) {
  std::string out(4 * ((in.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(in.data()),
                                static_cast<int>(in.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

std::string percent_encode(std::string_view in) {
  constexpr std::string_view kHex = "0123456789ABCDEF";
  std::string out;
  for (char c : in) {
    const auto u = static_cast<unsigned char>(c);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '_' || c == '.') {
      out += c;
    } else {
      out += {'%', kHex[u >> 4], kHex[u & 15]};
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::string token =
      !input.empty() && input.front() == '~' ? base64(input.substr(1)) : std::string(input);
  apiserver::http::Request request;
  request.method = "GET";
  fuzz::set_target(request, "/api/v1/namespaces/kube-system/configmaps?limit=1&continue=" +
                                percent_encode(token));
  request.remote_address = "127.0.0.1";
  fuzz::ApiHarness::get().send(request);
  return 0;
}
