#pragma once

// The app core's one conversion from the library's strings (UTF-8) to Qt's.

#include <QString>

#include <string>

inline QString q(const std::string& s)
{
    return QString::fromStdString(s);
}
