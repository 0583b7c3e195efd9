// attnplan-cli: the headless front end. Sizes in bytes, times in seconds, money in US dollars.
#include "CliArgs.h"
#include "CommandTable.h"
#include "Commands.h"

#include <exception>
#include <iostream>

int main(int argc, char** argv)
{
    using namespace attnplan::cli;
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
        (args.empty() ? std::cerr : std::cout) << overallUsage();
        return args.empty() ? 2 : 0;
    }
    if (args[0] == "--version" || args[0] == "-V") {
        std::cout << "attnplan-cli " << ATTNPLAN_VERSION << "\n";
        return 0;
    }
    const std::string command = args[0];
    args.erase(args.begin());
    const Command* c = findCommand(command);
    if (!c)
        return fail("unknown command \"" + command + "\" (see attnplan-cli --help)");
    if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
        std::cout << commandUsage(*c);
        return 0;
    }
    try {
        return c->run(args);
    } catch (const UsageError& e) {
        return fail(e.what());
    } catch (const std::exception& e) {
        return fail(std::string("internal error: ") + e.what());
    }
}
