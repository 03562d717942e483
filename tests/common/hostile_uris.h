// PostgreSQL URIs whose password ("Sup3rSecret", in some spelling) the hostile probe of issue
// 40 saw printed: a '?' in the password, a malformed percent escape (libpq quotes the token),
// a malformed host (libpq quotes the whole URI), a percent-encoded keyword and sslpassword. No
// server listens on 127.0.0.1:9. Shared by the unit test of RedactedUri and the tests that run
// every printer of ember-plans and ember-lab with them.
#pragma once

#include <string>
#include <vector>

namespace ember::test {

inline const std::vector<std::string> kHostileUris = {
    "postgresql://e:pa?Sup3rSecret@127.0.0.1:9/x",
    "postgresql://e:Sup3r%zzSecret@127.0.0.1:9/x",
    "postgresql://e:Sup3rSecret@[::1]x:9/x",
    "postgresql://e:Sup3rSecret@[::1:9/x",
    "postgresql://e@127.0.0.1:9/x?pass%77ord=Sup3rSecret",
    "postgresql://e@127.0.0.1:9/x?sslpassword=Sup3rSecret",
};

// What no output may contain: the secret's first part, common to every spelling above.
inline constexpr char kSecretPart[] = "Sup3r";

}  // namespace ember::test
