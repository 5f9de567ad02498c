#include "server/gzip.h"

#include <array>
#include <boost/beast/zlib/deflate_stream.hpp>
#include <cctype>
#include <cstdint>

namespace apiserver::server {
namespace {

uint32_t crc32(std::string_view data) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) {
        c = (c & 1) != 0 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      }
      t[i] = c;
    }
    return t;
  }();
  uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char byte : data) {
    crc = table[(crc ^ byte) & 0xFFu] ^ (crc >> 8);
  }
  return crc ^ 0xFFFFFFFFu;
}

void put_le32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) {
    out.push_back(static_cast<char>((v >> (8 * i)) & 0xFFu));
  }
}

std::string lower_trimmed(std::string_view s) {
  size_t b = s.find_first_not_of(" \t");
  size_t e = s.find_last_not_of(" \t");
  std::string out(b == std::string_view::npos ? std::string_view() : s.substr(b, e - b + 1));
  for (char& c : out) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace

bool accepts_gzip(std::string_view header) {
  size_t start = 0;
  while (start <= header.size()) {
    size_t end = header.find(',', start);
    if (end == std::string_view::npos) {
      end = header.size();
    }
    std::string_view item = header.substr(start, end - start);
    size_t semi = item.find(';');
    if (lower_trimmed(item.substr(0, semi)) == "gzip") {
      if (semi == std::string_view::npos) {
        return true;
      }
      std::string params = lower_trimmed(item.substr(semi + 1));
      // "q=0", "q=0.0", "q=0.000" refuse; any other quality accepts.
      if (params.rfind("q=", 0) != 0) {
        return true;
      }
      return params.substr(2).find_first_not_of("0.") != std::string::npos;
    }
    start = end + 1;
  }
  return false;
}

std::string gzip(std::string_view data) {
  namespace zlib = boost::beast::zlib;
  // Header: magic, CM=deflate, no flags, no mtime, XFL=0, OS=unknown (255).
  std::string out = {'\x1f', '\x8b', '\x08', '\0', '\0', '\0', '\0', '\0', '\0', '\xff'};
  zlib::deflate_stream stream;
  stream.reset(6, 15, 8, zlib::Strategy::normal);  // raw deflate: the gzip framing is ours
  size_t header = out.size();
  out.resize(header + stream.upper_bound(data.size()) + 16);
  zlib::z_params params;
  params.next_in = data.data();
  params.avail_in = data.size();
  params.next_out = out.data() + header;
  params.avail_out = out.size() - header;
  boost::system::error_code ec;
  stream.write(params, zlib::Flush::finish, ec);
  // upper_bound() guarantees room for everything, so finish completes in one call.
  out.resize(header + params.total_out);
  put_le32(out, crc32(data));
  put_le32(out, static_cast<uint32_t>(data.size()));
  return out;
}

}  // namespace apiserver::server
