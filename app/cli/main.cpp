// attnplan-cli: the headless front end. Sizes in bytes, times in seconds, money in US dollars.
#include "CliArgs.h"
#include "Commands.h"

#include <exception>
#include <iostream>

namespace attnplan::cli {

int fail(const std::string& message)
{
    std::cerr << "attnplan-cli: " << message << "\n";
    return 2;
}

} // namespace attnplan::cli

namespace {

const char* kUsage = R"(usage: attnplan-cli COMMAND [options]

commands:
  inspect PATH [--context N] [--kv-dtype T] [--weight-dtype T] [--json]
  flops --tokens N --d-model D [--layers L] [--json]
  capacity PATH --gpu NAME|--gpu-memory BYTES [--gpus N] [--tp N] --context N
           [--max-num-batched-tokens N] [--utilization X] [--engine vllm|vllm-legacy]
           [--block-size N] [--weight-dtype T] [--kv-dtype T] [--average-tokens N]
           [--weight-bytes B] [--activation-bytes B] [--overhead-bytes B] [--json]
  plan PATH --context N [--concurrent N] [--requests-per-second R] [--output-tokens N]
           [--max-ttft S] [--max-tpot S] [--gpu NAME] [--json]

  cost --layout FILE | --price PROVIDER/MODEL | --input-price USD_PER_M --output-price USD_PER_M
           [--cache-write-multiplier X] [--cache-read-multiplier Y] [--stable-tokens N]
           [--volatile-tokens N] [--question-tokens N] [--output-tokens N]
           [--requests-per-day N] [--ttl-seconds N] [--arrival even|poisson|bursts]
           [--corpus-tokens N [--chunk-tokens N] [--top-k K]] [--json]
  estimate-tokens FILE|- [--json]
  bench [--tokens N,N,...] [--heads H] [--kv-heads K] [--head-dim D] [--causal] [--decode]
           [--decode-kv-heads K,K,...] [--threads T] [--model PATH] [--repeats R] [--no-naive]
           [--json]

PATH is a config.json, a model folder, or a Hugging Face cache folder.
Exit status: 0 success, 2 bad input or usage.
)";

} // namespace

int main(int argc, char** argv)
{
    using namespace attnplan::cli;
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
        (args.empty() ? std::cerr : std::cout) << kUsage;
        return args.empty() ? 2 : 0;
    }
    const std::string command = args[0];
    args.erase(args.begin());
    try {
        if (command == "inspect")
            return runInspect(args);
        if (command == "flops")
            return runFlops(args);
        if (command == "capacity")
            return runCapacity(args);
        if (command == "plan")
            return runPlan(args);
        if (command == "cost")
            return runCost(args);
        if (command == "estimate-tokens")
            return runEstimateTokens(args);
        if (command == "bench")
            return runBench(args);
        return fail("unknown command \"" + command + "\" (see attnplan-cli --help)");
    } catch (const UsageError& e) {
        return fail(e.what());
    } catch (const std::exception& e) {
        return fail(std::string("internal error: ") + e.what());
    }
}
