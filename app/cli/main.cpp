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

std::string flagFor(const std::string& field)
{
    static const std::pair<const char*, const char*> kFlags[] = {
        {"gpu", "--gpu"},
        {"gpus", "--gpus"},
        {"tp", "--tp"},
        {"context", "--context"},
        {"average_tokens", "--average-tokens"},
        {"utilization", "--utilization"},
        {"block_size", "--block-size"},
        {"engine", "--engine"},
        {"weight_dtype", "--weight-dtype"},
        {"kv_dtype", "--kv-dtype"},
        {"max_num_seqs", "--max-num-seqs"},
        {"max_num_batched_tokens", "--max-num-batched-tokens"},
    };
    for (const auto& [name, flag] : kFlags)
        if (field == name)
            return flag;
    return {};
}

int fail(const attnplan::Error& error)
{
    const std::string flag = flagFor(error.field);
    return fail(flag.empty() ? error.message : flag + ": " + error.message);
}

} // namespace attnplan::cli

namespace {

const char* kUsage =
    R"(usage: attnplan-cli COMMAND [options]     (attnplan-cli COMMAND --help for one)

commands:
  inspect   a model's parameters, weight bytes, KV cache per token and per conversation
  models    the bundled models: name, Hugging Face id, attention, parameters, KV per token
  flops     attention's quadratic and linear FLOPs at a length, and where they cross
  capacity  conversations that fit on a GPU at a context, the KV budget, TTFT and TPOT
  plan      the fewest GPUs of each kind for a concurrency or request rate
  report    a scenario file (model, deployment, prompt, targets) in full: JSON, Markdown, CSV
  cost      a prompt's price on a hosted API, with and without prompt caching
  prices    the price catalog in use; prices check FILE compares a file (ours or LiteLLM's)
  estimate-tokens  a token count estimated from text
  bench     time the live attention kernels on this machine

options:
  --help     this text           --version  attnplan-cli's version

MODEL is a config.json, a model folder, a Hugging Face cache folder, or a bundled model's name
or repository id (attnplan-cli models). Sizes in bytes, times in seconds, money in US dollars.
Exit status: 0 success, 2 bad input or usage.
)";

const char* kCommandUsage[][2] = {
    {"inspect", "inspect MODEL [--context N] [--kv-dtype T] [--weight-dtype T] [--json]"},
    {"models", "models [--json]"},
    {"flops", "flops --tokens N --d-model D [--layers L] [--json]"},
    {"capacity",
     "capacity MODEL --gpu NAME|--gpu-memory BYTES [--gpus N] [--tp N] --context N\n"
     "         [--max-num-batched-tokens N] [--utilization X] [--engine vllm|vllm-legacy]\n"
     "         [--block-size N] [--weight-dtype T] [--kv-dtype T] [--average-tokens N]\n"
     "         [--weight-bytes B] [--activation-bytes B] [--overhead-bytes B]\n"
     "         [--compute-efficiency X|CALIBRATION] [--memory-efficiency X|CALIBRATION] [--json]"},
    {"plan", "plan MODEL --context N [--concurrent N] [--requests-per-second R]\n"
             "     [--output-tokens N] [--max-ttft S] [--max-tpot S] [--gpu NAME] [--json]"},
    {"cost",
     "cost --layout FILE | --price PROVIDER/MODEL | --input-price USD_PER_M --output-price\n"
     "     USD_PER_M [--cache-write-multiplier X] [--cache-read-multiplier Y]\n"
     "     [--stable-tokens N] [--volatile-tokens N] [--question-tokens N] [--output-tokens N]\n"
     "     [--requests-per-day N] [--ttl-seconds N] [--arrival even|poisson|bursts]\n"
     "     [--burst-size N] [--concurrency N] [--explicit-cache] [--beta-context]\n"
     "     [--corpus-tokens N [--chunk-tokens N] [--top-k K]] [--prices FILE] [--json]"},
    {"report", "report SCENARIO.json [--json|--markdown|--csv]   (README, \"Scenarios\")"},
    {"prices", "prices [--prices FILE] [--json] | prices check FILE [--json]"},
    {"estimate-tokens", "estimate-tokens FILE|- [--json]"},
    {"bench", "bench [--tokens N,N,...] [--heads H] [--kv-heads K] [--head-dim D] [--causal]\n"
              "      [--decode] [--decode-kv-heads K,K,...] [--threads T] [--model MODEL]\n"
              "      [--repeats R] [--no-naive] [--no-ceilings] [--scalar]\n"
              "      [--save-calibration FILE] [--json]   (README, \"Calibration\")"},
};

} // namespace

int main(int argc, char** argv)
{
    using namespace attnplan::cli;
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
        (args.empty() ? std::cerr : std::cout) << kUsage;
        return args.empty() ? 2 : 0;
    }
    if (args[0] == "--version" || args[0] == "-V") {
        std::cout << "attnplan-cli " << ATTNPLAN_VERSION << "\n";
        return 0;
    }
    const std::string command = args[0];
    args.erase(args.begin());
    if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
        for (const auto& [name, usage] : kCommandUsage)
            if (command == name) {
                std::cout << "usage: attnplan-cli " << usage << "\n";
                return 0;
            }
    }
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
        if (command == "report")
            return runReport(args);
        if (command == "estimate-tokens")
            return runEstimateTokens(args);
        if (command == "bench")
            return runBench(args);
        if (command == "models")
            return runModels(args);
        if (command == "prices")
            return runPrices(args);
        return fail("unknown command \"" + command + "\" (see attnplan-cli --help)");
    } catch (const UsageError& e) {
        return fail(e.what());
    } catch (const std::exception& e) {
        return fail(std::string("internal error: ") + e.what());
    }
}
