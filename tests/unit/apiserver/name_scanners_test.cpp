#include "registry/name_scanners.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "registry/objects.h"

using apiserver::registry::dns1035_label_problems;
using apiserver::registry::dns1123_label_problems;
using apiserver::registry::dns1123_subdomain_problems;
using apiserver::registry::label_key_problems;
using apiserver::registry::label_value_problems;
using apiserver::registry::matches_dns1035_label;
using apiserver::registry::matches_dns1123_label;
using apiserver::registry::matches_dns1123_subdomain;
using apiserver::registry::matches_qualified_name;
using apiserver::registry::name_problems;
using apiserver::registry::NameRule;
using Problems = std::vector<std::string>;

namespace {

const std::string kSubdomain =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const std::string kLabel =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const std::string kDns1035 =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
    "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

}  // namespace

TEST_CASE("the scanners accept and reject as upstream's anchored regexes do", "[names]") {
  struct Case {
    std::string text;
    bool label;
    bool subdomain;
    bool dns1035;
    bool qualified;
  };
  auto c = GENERATE(values<Case>({
      {"a", true, true, true, true},
      {"0", true, true, false, true},
      {"my-name", true, true, true, true},
      {"a.b", false, true, false, true},
      {"a..b", false, false, false, true},
      {".a", false, false, false, false},
      {"a-", false, false, false, false},
      {"-a", false, false, false, false},
      {"A", false, false, false, true},
      {"a_b", false, false, false, true},
      {"", false, false, false, false},
      {"a.", false, false, false, false},
      {"1-a.b-2", false, true, false, true},
  }));
  CAPTURE(c.text);
  CHECK(matches_dns1123_label(c.text) == c.label);
  CHECK(matches_dns1123_subdomain(c.text) == c.subdomain);
  CHECK(matches_dns1035_label(c.text) == c.dns1035);
  CHECK(matches_qualified_name(c.text) == c.qualified);
}

TEST_CASE("a name of half a million characters is checked without recursion", "[names]") {
  const std::string valid(500000, 'a');
  CHECK(dns1123_subdomain_problems(valid) == Problems{"must be no more than 253 characters"});
  std::string invalid = valid;
  invalid[250000] = '!';
  CHECK(name_problems(invalid, NameRule::Dns1123Subdomain, false) ==
        Problems{"must be no more than 253 characters", kSubdomain});
  CHECK(dns1035_label_problems(invalid) ==
        Problems{"must be no more than 63 characters", kDns1035});
  CHECK(label_value_problems(invalid).size() == 2);
}

TEST_CASE("an RFC 1123 label that is a valid subdomain is told not to contain dots", "[names]") {
  CHECK(dns1123_label_problems("a.b") == Problems{"must not contain dots"});
  CHECK(dns1123_label_problems("a_b") == Problems{kLabel});
  CHECK(name_problems("x.y", NameRule::Dns1123Label, false) == Problems{"must not contain dots"});
}

TEST_CASE("a generateName prefix loses its last two characters to an 'a' as upstream masks it",
          "[names]") {
  // "ab-" is checked as "aa"; "A-" as "a"; a lone "-" stays as it is.
  CHECK(name_problems("ab-", NameRule::Dns1123Subdomain, true).empty());
  CHECK(name_problems("A-", NameRule::Dns1123Subdomain, true).empty());
  CHECK(name_problems("-", NameRule::Dns1123Subdomain, true) == Problems{kSubdomain});
  CHECK(name_problems("ab-", NameRule::Dns1123Subdomain, false) == Problems{kSubdomain});
}

TEST_CASE("a qualified name reports its prefix and name parts as upstream", "[names]") {
  CHECK(label_key_problems("example.com/app") == Problems{});
  CHECK(label_key_problems("/app") == Problems{"prefix part must be non-empty"});
  CHECK(label_key_problems("Example.com/app") == Problems{"prefix part " + kSubdomain});
  CHECK(label_key_problems("a/") ==
        Problems{"name part must be non-empty",
                 "name part must consist of alphanumeric characters, '-', '_' or '.', and must "
                 "start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  "
                 "or '123-abc', regex used for validation is "
                 "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"});
  CHECK(label_key_problems("a/b/c").size() == 1);
  CHECK(label_key_problems(std::string(64, 'k')) ==
        Problems{"name part must be no more than 63 characters"});
}
