// Go's quoting of strings inside error messages, which Kubernetes clients see verbatim, and the
// UTF-8 steps it rests on (shared with the other Go-text helpers of the tree). Pure functions,
// callable from any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace common {

// Go's strconv.Quote (the %q verb): "a\tb\xff☺" -> "\"a\\tb\\xff☺\"". Printable runes are kept,
// the C escapes \a \b \f \n \r \t \v are used, other control bytes and DEL become \xNN, other
// unprintable runes \uNNNN or \UNNNNNNNN, each byte of invalid UTF-8 \xNN. Known gap: unassigned
// code points count as printable (Go escapes them).
std::string go_quote(std::string_view s);

// The time package's own quoting (time.ParseDuration's and time.Parse's errors), not
// strconv.Quote: only '"' and '\' are escaped, and every byte of a control character or of a
// non-ASCII rune, valid or not, is written as \xNN (µs -> "\xc2\xb5s"); DEL stays as it is.
std::string go_time_quote(std::string_view s);

// Double quotes `s` with the short escapes \" \\ \n \t \r only; other control bytes and DEL
// become \xNN, every other byte stays as it is (no UTF-8 check). Not strconv.Quote: the field path
// display of managed fields and the console's YAML both write strings this way.
std::string c_quote(std::string_view s);

// Decodes the UTF-8 sequence at s[i] (i < s.size()) as Go's range loop does: `width` is its length;
// invalid or truncated sequences, overlong forms and surrogates yield U+FFFD with width 1.
char32_t decode_rune(std::string_view s, std::size_t i, std::size_t& width);

// Appends the UTF-8 encoding of `r` (at most U+10FFFF).
void append_utf8(std::string& out, char32_t r);

}  // namespace common
