// The Go runtime behaviour the strategic merge reproduces: the dynamic types of decoded JSON
// values, interface equality and hashing (with their panics), fmt's rendering in upstream's error
// texts, and sort.SliceStable.
#include "endpoints/patch/strategic_merge_internal.h"

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <string>
#include <utility>

namespace apiserver::endpoints::patch::strategic_merge_detail {
namespace {

bool fits_int64(const json& v) {
  return !v.is_number_unsigned() ||
         v.get<std::uint64_t>() <=
             static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
}

// strconv.FormatFloat(f, 'g', -1, 64), which fmt's %v uses: shortest digits, exponent form when
// the exponent is < -4 or >= 6 (the precision fmt assumes for the shortest form).
std::string go_float(double f) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, f, std::chars_format::scientific);
  if (ec != std::errc()) {
    return "NaN";
  }
  std::string sci(buf, end);  // e.g. "-1.2345e+06"
  std::string sign;
  if (!sci.empty() && sci[0] == '-') {
    sign = "-";
    sci.erase(0, 1);
  }
  size_t e = sci.find('e');
  std::string digits = sci.substr(0, e);
  int exp = std::atoi(sci.c_str() + e + 1);
  if (auto dot = digits.find('.'); dot != std::string::npos) {
    digits.erase(dot, 1);
  }
  if (exp < -4 || exp >= 6) {
    std::string out = sign + digits.substr(0, 1);
    if (digits.size() > 1) {
      out += "." + digits.substr(1);
    }
    int abs_exp = exp < 0 ? -exp : exp;
    out += exp < 0 ? "e-" : "e+";
    if (abs_exp < 10) {
      out += "0";
    }
    return out + std::to_string(abs_exp);
  }
  if (exp < 0) {
    return sign + "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
  }
  size_t int_digits = static_cast<size_t>(exp) + 1;
  if (digits.size() <= int_digits) {
    return sign + digits + std::string(int_digits - digits.size(), '0');
  }
  return sign + digits.substr(0, int_digits) + "." + digits.substr(int_digits);
}

// fmt's rendering of a decoded JSON value with verb 'v' or 's' (maps print their keys sorted),
// appended to `out` (one buffer for the whole value: deep values render in linear time).
void go_sprint_into(std::string& out, const json& v, char verb) {
  auto bad_verb = [&out, verb](const char* type, const std::string& text) {
    out += verb == 's' ? "%!s(" + std::string(type) + "=" + text + ")" : text;
  };
  switch (v.type()) {
    case json::value_t::null:
      out += verb == 's' ? "%!s(<nil>)" : "<nil>";
      return;
    case json::value_t::string:
      out += v.get_ref<const std::string&>();
      return;
    case json::value_t::boolean:
      bad_verb("bool", v.get<bool>() ? "true" : "false");
      return;
    case json::value_t::number_integer:
      bad_verb("int64", std::to_string(v.get<std::int64_t>()));
      return;
    case json::value_t::number_unsigned:
      if (fits_int64(v)) {
        bad_verb("int64", std::to_string(v.get<std::uint64_t>()));
      } else {
        bad_verb("float64", go_float(static_cast<double>(v.get<std::uint64_t>())));
      }
      return;
    case json::value_t::number_float:
      bad_verb("float64", go_float(v.get<double>()));
      return;
    case json::value_t::array: {
      out += '[';
      for (size_t i = 0; i < v.size(); ++i) {
        if (i != 0) {
          out += ' ';
        }
        go_sprint_into(out, v[i], verb);
      }
      out += ']';
      return;
    }
    case json::value_t::object: {
      out += "map[";
      bool first = true;
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (!first) {
          out += ' ';
        }
        out += it.key();
        out += ':';
        go_sprint_into(out, it.value(), verb);
        first = false;
      }
      out += ']';
      return;
    }
    default:
      return;
  }
}

// sort.SliceStable: insertion sort on blocks of 20, then SymMerge. Reproduced step by step
// because upstream's less function is not a strict weak order when an item is missing from the
// order list, so the outcome depends on the algorithm.
class GoStableSort {
 public:
  GoStableSort(Items& data, std::function<bool(const json&, const json&)> less)
      : data_(data), less_items_(std::move(less)) {}

  void run() {
    int n = static_cast<int>(data_.size());
    int block = 20;
    int a = 0;
    int b = block;
    while (b <= n) {
      insertion_sort(a, b);
      a = b;
      b += block;
    }
    insertion_sort(a, n);
    while (block < n) {
      a = 0;
      b = 2 * block;
      while (b <= n) {
        sym_merge(a, a + block, b);
        a = b;
        b += 2 * block;
      }
      if (int m = a + block; m < n) {
        sym_merge(a, m, n);
      }
      block *= 2;
    }
  }

 private:
  bool less(int i, int j) {
    return less_items_(data_[static_cast<size_t>(i)], data_[static_cast<size_t>(j)]);
  }
  void swap(int i, int j) {
    std::swap(data_[static_cast<size_t>(i)], data_[static_cast<size_t>(j)]);
  }

  void insertion_sort(int a, int b) {
    for (int i = a + 1; i < b; ++i) {
      for (int j = i; j > a && less(j, j - 1); --j) {
        swap(j, j - 1);
      }
    }
  }

  void swap_range(int a, int b, int n) {
    for (int i = 0; i < n; ++i) {
      swap(a + i, b + i);
    }
  }

  void rotate(int a, int m, int b) {
    int i = m - a;
    int j = b - m;
    while (i != j) {
      if (i > j) {
        swap_range(m - i, m, j);
        i -= j;
      } else {
        swap_range(m - i, m + j - i, i);
        j -= i;
      }
    }
    swap_range(m - i, m, i);
  }

  void sym_merge(int a, int m, int b) {
    if (m - a == 1) {
      int i = m;
      int j = b;
      while (i < j) {
        int h = static_cast<int>(static_cast<unsigned>(i + j) >> 1);
        if (less(h, a)) {
          i = h + 1;
        } else {
          j = h;
        }
      }
      for (int k = a; k < i - 1; ++k) {
        swap(k, k + 1);
      }
      return;
    }
    if (b - m == 1) {
      int i = a;
      int j = m;
      while (i < j) {
        int h = static_cast<int>(static_cast<unsigned>(i + j) >> 1);
        if (!less(m, h)) {
          i = h + 1;
        } else {
          j = h;
        }
      }
      for (int k = m; k > i; --k) {
        swap(k, k - 1);
      }
      return;
    }
    int mid = static_cast<int>(static_cast<unsigned>(a + b) >> 1);
    int n = mid + m;
    int start = 0;
    int r = 0;
    if (m > mid) {
      start = n - b;
      r = mid;
    } else {
      start = a;
      r = m;
    }
    int p = n - 1;
    while (start < r) {
      int c = static_cast<int>(static_cast<unsigned>(start + r) >> 1);
      if (!less(p - c, c)) {
        start = c + 1;
      } else {
        r = c;
      }
    }
    int end = n - start;
    if (start < m && m < end) {
      rotate(start, m, end);
    }
    if (a < start && start < mid) {
      sym_merge(a, start, mid);
    }
    if (mid < end && end < b) {
      sym_merge(mid, end, b);
    }
  }

  Items& data_;
  std::function<bool(const json&, const json&)> less_items_;
};

}  // namespace

GoType go_type(const json& v) {
  switch (v.type()) {
    case json::value_t::object:
      return GoType::Map;
    case json::value_t::array:
      return GoType::Slice;
    case json::value_t::string:
      return GoType::String;
    case json::value_t::boolean:
      return GoType::Bool;
    case json::value_t::number_integer:
      return GoType::Int64;
    case json::value_t::number_unsigned:
      return fits_int64(v) ? GoType::Int64 : GoType::Float64;
    case json::value_t::number_float:
      return GoType::Float64;
    default:
      return GoType::Nil;
  }
}

// reflect.TypeOf(v) printed with %s; a nil interface prints as %!s(<nil>).
std::string go_type_name(const json& v) {
  switch (go_type(v)) {
    case GoType::Map:
      return std::string(kGoMapType);
    case GoType::Slice:
      return std::string(kGoSliceType);
    case GoType::String:
      return "string";
    case GoType::Int64:
      return "int64";
    case GoType::Float64:
      return "float64";
    case GoType::Bool:
      return "bool";
    case GoType::Nil:
      break;
  }
  return "%!s(<nil>)";
}
std::string go_sprint(const json& v, char verb) {
  std::string out;
  go_sprint_into(out, v, verb);
  return out;
}

std::string go_sprint_items(const Items& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i != 0) {
      out += ' ';
    }
    go_sprint_into(out, items[i], 'v');
  }
  return out + "]";
}

SmpError err_no_merge_key(const json& m, const std::string& key) {
  return internal("map: " + go_sprint(m, 'v') + " does not contain declared merge key: " + key);
}

// mergepatch.ErrBadArgType(expected, actual).
SmpError err_bad_arg_type(std::string_view expected, const json& actual) {
  return internal("expected a " + std::string(expected) + ", but received a " +
                  go_type_name(actual));
}

SmpError err_bad_patch_type(const json& directive, const json& m) {
  return internal("unknown patch type: " + go_sprint(directive, 's') +
                  " in map: " + go_sprint(m, 'v'));
}

Items elements(const json& list) {
  Items out;
  if (list.is_array()) {
    out.reserve(list.size());
    for (const json& v : list) {
      out.push_back(v);
    }
  }
  return out;
}

json to_array(Items items) {
  json out = json::array();
  for (json& v : items) {
    out.push_back(std::move(v));
  }
  return out;
}

void go_slice_stable(Items& data, std::function<bool(const json&, const json&)> less) {
  GoStableSort(data, std::move(less)).run();
}

// ---- Go runtime behaviour ----

SmpError Merger::panic(std::string message) {
  if (!panic_) {
    panic_ = std::move(message);
  }
  return SmpError{SmpErrorKind::Panic, *panic_};
}
Status Merger::panicked() const {
  if (panic_) {
    return SmpError{SmpErrorKind::Panic, *panic_};
  }
  return {};
}

// `a == b` on two interface{} values.
bool Merger::go_equal(const json& a, const json& b) {
  GoType ta = go_type(a);
  if (ta != go_type(b)) {
    return false;
  }
  switch (ta) {
    case GoType::Map:
    case GoType::Slice:
      panic("runtime error: comparing uncomparable type " + go_type_name(a));
      return false;
    case GoType::Nil:
      return true;
    case GoType::String:
      return a.get_ref<const std::string&>() == b.get_ref<const std::string&>();
    case GoType::Bool:
      return a.get<bool>() == b.get<bool>();
    case GoType::Int64:
      return a.get<std::int64_t>() == b.get<std::int64_t>();
    case GoType::Float64:
      return a.get<double>() == b.get<double>();
  }
  return false;
}

// Using `v` as a key of a Go map.
void Merger::require_hashable(const json& v) {
  GoType t = go_type(v);
  if (t == GoType::Map || t == GoType::Slice) {
    panic("runtime error: hash of unhashable type " + go_type_name(v));
  }
}

}  // namespace apiserver::endpoints::patch::strategic_merge_detail
