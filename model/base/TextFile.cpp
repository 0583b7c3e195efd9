#include "base/TextFile.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sys/stat.h>

namespace fs = std::filesystem;

namespace attnplan {

Expected<int64_t> regularFileSize(const std::string& path)
{
    struct stat st = {};
    if (::stat(path.c_str(), &st) != 0) {
        const int e = errno;
        if (e == ENOENT || e == ENOTDIR)
            return Error{path + ": no such file"};
        if (e == ELOOP)
            return Error{path + ": too many levels of symbolic links (a link loop)"};
        return Error{path + ": cannot read (" + std::strerror(e) + ")"};
    }
    if (S_ISDIR(st.st_mode))
        return Error{path + ": is a folder, expected a file"};
    if (!S_ISREG(st.st_mode))
        return Error{path + ": not a regular file (" +
                     (S_ISFIFO(st.st_mode)   ? std::string("a FIFO")
                      : S_ISCHR(st.st_mode)  ? std::string("a character device")
                      : S_ISBLK(st.st_mode)  ? std::string("a block device")
                      : S_ISSOCK(st.st_mode) ? std::string("a socket")
                                             : std::string("a special file")) +
                     "); refused unread"};
    return int64_t(st.st_size);
}

Expected<std::string> readTextFile(const std::string& path, int64_t maxBytes)
{
    auto size = regularFileSize(path);
    if (!size)
        return Error{size.error()};
    if (*size > maxBytes)
        return Error{path + ": file is " + std::to_string(*size) + " bytes, over the limit of " +
                     std::to_string(maxBytes) + " bytes; refused unread"};
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return Error{path + ": cannot open for reading (" + std::strerror(errno) + ")"};
    // The size is checked again while reading: a file that grows is cut at the limit and refused.
    return readBoundedStream(in, maxBytes, path);
}

Expected<std::string> readBoundedStream(std::istream& in, int64_t maxBytes,
                                        const std::string& label)
{
    std::string text;
    char buffer[1 << 16];
    while (in) {
        in.read(buffer, sizeof buffer);
        const std::streamsize got = in.gcount();
        if (got <= 0)
            break;
        if (int64_t(text.size()) + got > maxBytes)
            return Error{label + ": more than " + std::to_string(maxBytes) +
                         " bytes, over the limit; refused"};
        text.append(buffer, size_t(got));
    }
    if (in.bad())
        return Error{label + ": read failed"};
    return text;
}

Expected<std::string> readTextInput(const std::string& path, int64_t maxBytes)
{
    if (path == "-")
        return readBoundedStream(std::cin, maxBytes, "standard input");
    return readTextFile(path, maxBytes);
}

} // namespace attnplan
