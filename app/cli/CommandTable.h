#pragma once

#include <string>
#include <vector>

namespace attnplan::cli {

// One option of a command. A switch has no value name.
struct Option
{
    const char* name;  // "gpu" for --gpu
    const char* value; // "NAME", or nullptr for a switch
    const char* help;
};

// One command: what its parser accepts is what its --help lists, from this one table.
struct Command
{
    const char* name;
    const char* operands; // "MODEL", "SCENARIO.json", "" when it takes none
    const char* summary;  // the line in attnplan-cli --help
    std::vector<Option> options;
    int (*run)(const std::vector<std::string>& args);
};

const std::vector<Command>& commands();
// nullptr when no command has that name.
const Command* findCommand(const std::string& name);
// The options of a command; a usage error for a name not in the table (a programming error).
const std::vector<Option>& optionsOf(const std::string& command);

// attnplan-cli --help: every command with its summary.
std::string overallUsage();
// attnplan-cli COMMAND --help: its synopsis and every option it takes, with what each does.
std::string commandUsage(const Command& command);

} // namespace attnplan::cli
