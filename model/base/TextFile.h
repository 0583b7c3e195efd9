#pragma once

// Every file attnplan reads goes through here, so that every reader has the same bound and
// refuses the same things: a folder, a FIFO, a device, a socket, a symlink loop, and a file
// over its limit are errors naming the path, checked before a byte is read; standard input
// ("-") is read up to the same limit and refused past it. A reader never blocks on a special
// file nor grows without bound (README, "Limits").

#include "base/Expected.h"

#include <cstdint>
#include <istream>
#include <string>

namespace attnplan {

inline constexpr int64_t kMaxLogBytes = int64_t(64) << 20;  // start-up logs, benchmark outputs
inline constexpr int64_t kMaxTextBytes = int64_t(64) << 20; // prompts for estimate-tokens

// Empty when `path` names a regular file (after following links) that can be opened; else why
// not, naming the path.
Expected<int64_t> regularFileSize(const std::string& path);

// A whole regular file of at most maxBytes.
Expected<std::string> readTextFile(const std::string& path, int64_t maxBytes);

// At most maxBytes from a stream (standard input); past that an error naming `label`.
Expected<std::string> readBoundedStream(std::istream& in, int64_t maxBytes,
                                        const std::string& label);

// `path`, or standard input when it is "-".
Expected<std::string> readTextInput(const std::string& path, int64_t maxBytes);

} // namespace attnplan
