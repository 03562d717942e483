// Text that others control, made safe to print: workload names and miss rows another host of a
// shared server wrote, a --log file from another machine, a bundle's manifest and file name, a
// stored environment description, another local user's file name in /dev/shm. Printed raw, an
// ESC sequence in any of them sets the terminal's title, clears it or recolours what follows,
// and a newline forges a line of output. Every human printer (ember-plans, ember-lab, the
// engine's log lines) passes such text through Printable; --json output escapes by itself
// (JSON strings), with invalid UTF-8 replaced (JsonText, tools/).
//
// Pure functions, callable from any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ember {

// Whether `text` is well-formed UTF-8 (no overlong forms, no surrogates, nothing past U+10FFFF).
bool IsValidUtf8(std::string_view text);

// `text` with every byte or character a terminal would act on written as a visible escape:
// C0 controls (tab and newline included) and DEL as \t, \n, \r or \xNN, C1 controls
// (U+0080..U+009F) and the bidirectional overrides and isolates (U+202A..U+202E,
// U+2066..U+2069, which reorder what a reader sees) as \u{NNNN}, and each byte of invalid UTF-8
// as \xNN. A backslash is doubled, so an escape in the output always means an escape was made.
// Everything else, printable Unicode included, is kept as it is.
std::string Printable(std::string_view text);

// Printable, except that newlines, tabs and backslashes are kept: for a whole message of
// several lines that ember or a library composed (libpq's "...failed: ...\n\tIs the server
// running...") and that may quote text from outside. Applying it to text that Printable already
// escaped changes nothing, so the log's sink applies it to every message (engine/core/log.cpp)
// whatever its fields went through.
std::string PrintableLines(std::string_view text);

// Printable, cut to at most `max_bytes` of the input: a longer text ends with
// "… (N more bytes)". Lines, names and details from outside are bounded so one hostile row or
// log line cannot flood a terminal or a log.
std::string PrintableBounded(std::string_view text, size_t max_bytes);

// The longest name (a workload's) that ember stores and shows.
inline constexpr size_t kMaxNameBytes = 256;

// Whether `name` can be stored in either database and shown as it is: valid UTF-8, at most
// kMaxNameBytes, and nothing Printable would escape but a backslash.
bool IsShowableName(std::string_view name);

// The longest piece of outside text a human printer shows whole: a miss explanation, a
// workload name, an environment description.
inline constexpr size_t kMaxShownBytes = 4096;

// PrintableBounded(text, kMaxShownBytes): what a human printer does with one field from outside.
inline std::string ShownText(std::string_view text) {
  return PrintableBounded(text, kMaxShownBytes);
}

}  // namespace ember
