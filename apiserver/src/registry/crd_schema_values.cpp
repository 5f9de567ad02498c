// Go's value model and printing for custom resources (crd_schema_values.h), and go_format_float
// (crd_schema.h), which shares the shortest-digits formatting.
#include "registry/crd_schema_values.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "registry/crd_schema.h"
#include "registry/go_text.h"

namespace apiserver::registry {

using nlohmann::json;

Kind kind_of(const json& v) {
  switch (v.type()) {
    case json::value_t::boolean:
      return Kind::Bool;
    case json::value_t::number_integer:
      return Kind::Int;
    case json::value_t::number_unsigned:
      return v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
                 ? Kind::Float
                 : Kind::Int;
    case json::value_t::number_float:
      return Kind::Float;
    case json::value_t::string:
      return Kind::String;
    case json::value_t::array:
      return Kind::Array;
    case json::value_t::object:
      return Kind::Object;
    default:
      return Kind::Null;
  }
}

int64_t as_int(const json& v) {
  return v.is_number_unsigned() ? static_cast<int64_t>(v.get<uint64_t>()) : v.get<int64_t>();
}

double as_double(const json& v) {
  return v.get<double>();
}

int64_t go_int64(double d) {
  if (std::isnan(d)) {
    return std::numeric_limits<int64_t>::min();
  }
  if (d >= 9.2233720368547758e18) {
    return std::numeric_limits<int64_t>::max();
  }
  if (d <= -9.2233720368547758e18) {
    return std::numeric_limits<int64_t>::min();
  }
  return static_cast<int64_t>(d);
}

namespace {

// Shortest round-trip digits of |v| and the decimal point position (strconv's decimal form):
// 1500 -> ("15", 4), 0.05 -> ("5", -1).
void shortest_digits(double v, std::string& digits, int& dp) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, std::fabs(v), std::chars_format::scientific);
  std::string text(buf, res.ptr);
  const size_t e = text.find('e');
  digits.clear();
  for (size_t i = 0; i < e; ++i) {
    if (text[i] != '.') {
      digits += text[i];
    }
  }
  // to_chars writes a well-formed exponent of at most three digits.
  int exp = 0;
  const char* first = text.data() + e + 1;
  first += *first == '+' ? 1 : 0;
  std::from_chars(first, text.data() + text.size(), exp);
  dp = exp + 1;
}

std::string format_e(bool neg, const std::string& digits, int dp, bool two_digit_exp) {
  std::string out = neg ? "-" : "";
  out += digits[0];
  if (digits.size() > 1) {
    out += '.';
    out += digits.substr(1);
  }
  int exp = dp - 1;
  out += exp < 0 ? "e-" : "e+";
  exp = std::abs(exp);
  if (exp < 10 && two_digit_exp) {
    out += '0';
  }
  out += std::to_string(exp);
  return out;
}

std::string format_f(bool neg, const std::string& digits, int dp) {
  std::string out = neg ? "-" : "";
  const int nd = static_cast<int>(digits.size());
  if (dp <= 0) {
    out += "0." + std::string(static_cast<size_t>(-dp), '0') + digits;
  } else if (dp >= nd) {
    out += digits + std::string(static_cast<size_t>(dp - nd), '0');
  } else {
    out += digits.substr(0, static_cast<size_t>(dp)) + "." + digits.substr(static_cast<size_t>(dp));
  }
  return out;
}

}  // namespace

std::string go_json_float(double v) {
  if (v == 0) {
    return "0";
  }
  std::string digits;
  int dp = 0;
  shortest_digits(v, digits, dp);
  const double a = std::fabs(v);
  if (a < 1e-6 || a >= 1e21) {
    return format_e(v < 0, digits, dp, false);
  }
  return format_f(v < 0, digits, dp);
}

std::string go_json(const json& v) {
  struct Frame {
    const json* value;
    json::const_iterator next;
  };
  std::string out;
  std::vector<Frame> stack;
  auto write = [&](const json& x) {
    switch (kind_of(x)) {
      case Kind::Null:
        out += "null";
        break;
      case Kind::Bool:
        out += x.get<bool>() ? "true" : "false";
        break;
      case Kind::Int:
        out += std::to_string(as_int(x));
        break;
      case Kind::Float:
        out += go_json_float(as_double(x));
        break;
      case Kind::String:
        out += go_json_string(x.get_ref<const std::string&>());
        break;
      case Kind::Array:
        out += '[';
        stack.push_back({&x, x.begin()});
        break;
      case Kind::Object:
        out += '{';
        stack.push_back({&x, x.begin()});
        break;
    }
  };
  write(v);
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.next == f.value->end()) {
      out += f.value->is_object() ? '}' : ']';
      stack.pop_back();
      continue;
    }
    if (f.next != f.value->begin()) {
      out += ',';
    }
    if (f.value->is_object()) {
      out += go_json_string(f.next.key()) + ":";
    }
    const json& item = *f.next;
    ++f.next;
    write(item);  // may grow the stack: `f` is not used after this
  }
  return out;
}

std::string render_value(const json& v) {
  switch (kind_of(v)) {
    case Kind::Null:
      return "null";
    case Kind::Bool:
      return v.get<bool>() ? "true" : "false";
    case Kind::Int:
      return std::to_string(as_int(v));
    case Kind::Float:
      return go_format_float(as_double(v));
    case Kind::String:
      return go_quote(v.get<std::string>());
    default:
      return go_print(v, true);
  }
}

bool go_equal(const json& a, const json& b) {
  std::vector<std::pair<const json*, const json*>> pending{{&a, &b}};
  while (!pending.empty()) {
    const auto [x, y] = pending.back();
    pending.pop_back();
    const Kind kx = kind_of(*x);
    if (kx != kind_of(*y)) {
      return false;
    }
    switch (kx) {
      case Kind::Int:
        if (as_int(*x) != as_int(*y)) {
          return false;
        }
        break;
      case Kind::Float:
        if (as_double(*x) != as_double(*y)) {
          return false;
        }
        break;
      case Kind::Array:
        if (x->size() != y->size()) {
          return false;
        }
        for (size_t i = 0; i < x->size(); ++i) {
          pending.emplace_back(&(*x)[i], &(*y)[i]);
        }
        break;
      case Kind::Object:
        if (x->size() != y->size()) {
          return false;
        }
        for (auto it = x->begin(); it != x->end(); ++it) {
          auto other = y->find(it.key());
          if (other == y->end()) {
            return false;
          }
          pending.emplace_back(&*it, &*other);
        }
        break;
      default:
        if (*x != *y) {
          return false;
        }
        break;
    }
  }
  return true;
}

namespace {

// Go's string(rune(i)) for an int64 converted to string.
std::string go_rune_string(int64_t i) {
  std::string out;
  if (i < 0 || i > 0x10FFFF || (i >= 0xD800 && i <= 0xDFFF)) {
    append_utf8(out, 0xFFFD);
  } else {
    append_utf8(out, static_cast<char32_t>(i));
  }
  return out;
}

}  // namespace

bool enum_matches(const json& data, const json& candidate) {
  const Kind kd = kind_of(data);
  const Kind kc = kind_of(candidate);
  if (kc == Kind::Null || kd == Kind::Null) {
    return false;
  }
  if (kd == Kind::Int && kc == Kind::Float) {
    return static_cast<double>(as_int(data)) == as_double(candidate);
  }
  if (kd == Kind::Float && kc == Kind::Int) {
    return go_int64(as_double(data)) == as_int(candidate);
  }
  if (kd == Kind::Int && kc == Kind::String) {
    return go_rune_string(as_int(data)) == candidate.get<std::string>();
  }
  return go_equal(data, candidate);
}

bool is_json_integer(double f) {
  return std::isfinite(f) && std::fabs(f) <= 9007199254740992.0 && f == std::trunc(f);
}

std::string go_format_float(double value) {
  if (value == 0) {
    return std::signbit(value) ? "-0" : "0";
  }
  if (std::isinf(value)) {
    return value > 0 ? "+Inf" : "-Inf";
  }
  if (std::isnan(value)) {
    return "NaN";
  }
  std::string digits;
  int dp = 0;
  shortest_digits(value, digits, dp);
  const int exp = dp - 1;
  // %v is %g with the shortest digits, switching to an exponent below 1e-4 and from 1e6 on.
  if (exp < -4 || exp >= 6) {
    return format_e(value < 0, digits, dp, true);
  }
  return format_f(value < 0, digits, dp);
}

}  // namespace apiserver::registry
