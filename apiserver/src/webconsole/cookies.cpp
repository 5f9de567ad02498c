#include "webconsole/cookies.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <array>

#include "common/hex.h"
#include "common/trim.h"
#include "errors/status.h"

namespace apiserver::webconsole {

std::string cookie(const http::Request& request, const std::string& name) {
  std::string header = request.header("Cookie");
  std::string_view rest = header;
  while (!rest.empty()) {
    auto semicolon = rest.find(';');
    std::string_view pair = common::trim(rest.substr(0, semicolon));
    rest = semicolon == std::string_view::npos ? std::string_view{} : rest.substr(semicolon + 1);
    auto equals = pair.find('=');
    if (equals != std::string_view::npos && common::trim(pair.substr(0, equals)) == name) {
      return std::string(common::trim(pair.substr(equals + 1)));
    }
  }
  return {};
}

bool same_secret(std::string_view a, std::string_view b) {
  return a.size() == b.size() && !a.empty() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string hmac_hex(const std::string& key, std::string_view message) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int size = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), digest.data(),
       &size);
  return common::lower_hex(std::string_view(reinterpret_cast<const char*>(digest.data()), size));
}

std::string set_cookie(const std::string& name, const std::string& value, bool http_only,
                       long max_age_seconds) {
  return name + "=" + value + "; Path=/; " + (http_only ? "HttpOnly; " : "") +
         "SameSite=Strict; Max-Age=" + std::to_string(max_age_seconds);
}

void no_store(http::Response& response) {
  response.set_header("Cache-Control", "no-store");
  response.set_header("X-Content-Type-Options", "nosniff");
  response.set_header("Referrer-Policy", "no-referrer");
}

http::Response refuse(int code, const char* reason, const std::string& message) {
  return errors::failure(code, reason, message).response();
}

}  // namespace apiserver::webconsole
