#include "engine/core/printable.h"

#include <fmt/format.h>

#include <cstdint>

namespace ember {
namespace {

// The length of the well-formed UTF-8 sequence at the start of `text` and its code point, or
// 0 when the first byte does not begin one (RFC 3629, section 4: the table of valid sequences).
size_t DecodeOne(std::string_view text, uint32_t* code_point) {
  const auto byte = [&](size_t i) { return static_cast<uint8_t>(text[i]); };
  const uint8_t lead = byte(0);
  if (lead < 0x80) {
    *code_point = lead;
    return 1;
  }
  size_t length = 0;
  uint32_t value = 0;
  uint8_t low = 0x80;  // the range of the second byte, narrowed for overlongs and surrogates
  uint8_t high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    value = lead & 0x1Fu;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    value = lead & 0x0Fu;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    value = lead & 0x07u;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (text.size() < length) return 0;
  for (size_t i = 1; i < length; ++i) {
    const uint8_t b = byte(i);
    if (b < (i == 1 ? low : 0x80) || b > (i == 1 ? high : 0xBF)) return 0;
    value = (value << 6) | (b & 0x3Fu);
  }
  *code_point = value;
  return length;
}

bool ActsOnTerminal(uint32_t c) {
  return (c >= 0x80 && c <= 0x9F) || (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
}

void AppendEscapedByte(uint8_t b, std::string* out) {
  switch (b) {
    case '\n': *out += "\\n"; return;
    case '\r': *out += "\\r"; return;
    case '\t': *out += "\\t"; return;
    default: *out += fmt::format("\\x{:02x}", b);
  }
}

std::string Escaped(std::string_view text, bool keep_layout) {
  std::string out;
  out.reserve(text.size());
  uint32_t c = 0;
  while (!text.empty()) {
    const size_t n = DecodeOne(text, &c);
    if (n == 0) {
      AppendEscapedByte(static_cast<uint8_t>(text[0]), &out);
      text.remove_prefix(1);
      continue;
    }
    if (c == '\\' && !keep_layout) {
      out += "\\\\";
    } else if (keep_layout && (c == '\n' || c == '\t' || c == '\\')) {
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7F) {
      AppendEscapedByte(static_cast<uint8_t>(c), &out);
    } else if (ActsOnTerminal(c)) {
      out += fmt::format("\\u{{{:04X}}}", c);
    } else {
      out.append(text.substr(0, n));
    }
    text.remove_prefix(n);
  }
  return out;
}

}  // namespace

bool IsValidUtf8(std::string_view text) {
  uint32_t c = 0;
  while (!text.empty()) {
    const size_t n = DecodeOne(text, &c);
    if (n == 0) return false;
    text.remove_prefix(n);
  }
  return true;
}

bool IsShowableName(std::string_view name) {
  return name.size() <= kMaxNameBytes && PrintableLines(name) == name &&
         name.find_first_of("\n\t") == std::string_view::npos;
}

std::string Printable(std::string_view text) { return Escaped(text, false); }

std::string PrintableLines(std::string_view text) { return Escaped(text, true); }

std::string PrintableBounded(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return Printable(text);
  // Cut at a character boundary so the kept part does not end in a broken sequence.
  size_t cut = max_bytes;
  while (cut > 0 && (static_cast<uint8_t>(text[cut]) & 0xC0u) == 0x80u) --cut;
  return fmt::format("{}… ({} more bytes)", Printable(text.substr(0, cut)), text.size() - cut);
}

}  // namespace ember
