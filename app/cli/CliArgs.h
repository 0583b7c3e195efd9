#pragma once

#include "CommandTable.h"
#include "spec/DType.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace attnplan::cli {

// A usage error: printed as one line on stderr, exit status 2.
struct UsageError : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

// `--name value`, `--name=value` and bare `--flag` options plus positionals, as the command's
// row of CommandTable.cpp declares them (the same row its --help prints); anything else is a
// usage error.
class CliArgs
{
public:
    CliArgs(const std::vector<std::string>& args, const std::vector<Option>& options);

    bool has(const std::string& name) const
    {
        m_read.insert(name);
        return m_values.count(name) > 0;
    }
    bool flag(const std::string& name) const
    {
        m_read.insert(name);
        return m_switches.count(name) > 0;
    }
    std::optional<std::string> value(const std::string& name) const;
    const std::vector<std::string>& positionals() const { return m_positionals; }

    // Typed values; errors name the option and what was expected.
    std::optional<int64_t> integer(const std::string& name, int64_t min, int64_t max) const;
    std::optional<double> number(const std::string& name, double min, double max) const;
    std::vector<int64_t> integerList(const std::string& name, int64_t min, int64_t max) const;
    // A dtype option (fp32, bf16, fp16, fp8, int8, int4), or fallback when absent.
    DType dtype(const std::string& name, DType fallback) const;

    // A flag the user gave that the command never read is an error naming it: `who` says what
    // ran ("capacity --engine sglang"), so that a flag of another engine or an option the
    // command has no use for is never dropped without a word. Call once every option the
    // command uses has been read.
    void refuseUnused(const std::string& who) const;

private:
    mutable std::set<std::string> m_read;
    std::map<std::string, std::string> m_spelled; // each option as the user typed it
    std::map<std::string, std::string> m_values;
    std::set<std::string> m_switches;
    std::vector<std::string> m_positionals;
};

} // namespace attnplan::cli
