// A whole request (method, target, headers, body; support/framed_request.h) through
// ApiServer::handle as the admin, or as whoever the input's own Authorization header names.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "support/api_harness.h"
#include "support/framed_request.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto request =
      fuzz::parse_framed_request(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!request) {
    return 0;
  }
  fuzz::ApiHarness::get().send(*request);
  return 0;
}
