// Test support: the bytes of a TZif file (RFC 8536), written by hand so that time zone tests need
// no system zoneinfo: version 2 (an empty 32-bit block, then the 64-bit one) or version 1.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace testing_support {

struct TzifType {
  int32_t offset;  // seconds east of UTC
  bool dst;
};

inline void put_be(std::string& out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) {
    out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  }
}

// `transitions`: (instant, type index); `footer`: the POSIX TZ string ("" for none).
inline std::string tzif(const std::vector<std::pair<int64_t, uint8_t>>& transitions,
                        const std::vector<TzifType>& types, const std::string& footer,
                        int version = 2) {
  const int time_size = version == 1 ? 4 : 8;
  auto block = [&](std::string& out, bool empty) {
    const size_t timecnt = empty ? 0 : transitions.size();
    const size_t typecnt = empty ? 0 : types.size();
    const size_t charcnt = empty ? 0 : 4;
    out += "TZif";
    out.push_back(version == 1 ? '\0' : static_cast<char>('0' + version));
    out.append(15, '\0');
    for (size_t count : {size_t{0}, size_t{0}, size_t{0}, timecnt, typecnt, charcnt}) {
      put_be(out, count, 4);
    }
    if (empty) {
      return;
    }
    for (const auto& t : transitions) {
      put_be(out, static_cast<uint64_t>(t.first), time_size);
    }
    for (const auto& t : transitions) {
      out.push_back(static_cast<char>(t.second));
    }
    for (const TzifType& t : types) {
      put_be(out, static_cast<uint32_t>(t.offset), 4);
      out.push_back(t.dst ? 1 : 0);
      out.push_back(0);  // abbreviation index
    }
    out.append("ZZZ", 4);  // one abbreviation, NUL included
  };
  std::string out;
  if (version == 1) {
    block(out, false);
    return out;
  }
  block(out, true);
  block(out, false);
  out += "\n" + footer + "\n";
  return out;
}

// A zone that keeps New York's rules of today for all time: EST, with DST from the second Sunday
// of March to the first Sunday of November, both at 2:00 local time.
inline std::string eastern_tzif() {
  return tzif({}, {{-18000, false}}, "EST5EDT,M3.2.0,M11.1.0");
}

}  // namespace testing_support
