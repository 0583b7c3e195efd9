#include "CommandTable.h"

#include "CliArgs.h"
#include "Commands.h"

#include <algorithm>
#include <sstream>

namespace attnplan::cli {

namespace {

// The deployment every capacity-like command reads (capacity, plan): the model on a GPU plan
// under an engine, with each engine's own settings.
std::vector<Option> deploymentOptions()
{
    return {
        {"gpu", "NAME", "a GPU of the catalog, by name or alias (H100, A100-80G, ...)"},
        {"gpu-memory", "BYTES", "a custom GPU with this much memory, as the runtime reports it"},
        {"bandwidth", "BYTES_PER_S", "the custom GPU's memory bandwidth (default: H100 SXM's)"},
        {"tflops", "X", "the custom GPU's dense bf16 TFLOP/s (default: H100 SXM's)"},
        {"catalog", "FILE", "a GPU catalog file merged over the built-in one"},
        {"gpus", "N", "GPUs of one replica: TP x DP x PP (default: TP x DP x PP)"},
        {"tp", "N", "tensor parallelism of attention within a DP rank (default 1)"},
        {"dp", "N",
         "attention data parallelism: N ranks each running its own requests, the experts "
         "spread over all TP x DP ranks (default 1)"},
        {"ep", "N",
         "expert parallelism: N of the TP x DP ranks hold whole experts (default 1; vLLM's "
         "--enable-expert-parallel is TP x DP)"},
        {"enable-expert-parallel", nullptr, "vLLM's switch: EP = TP x DP"},
        {"enable-lora", nullptr, "vLLM's LoRA slots: --max-loras adapters of --max-lora-rank"},
        {"max-loras", "N", "vLLM's LoRA adapters resident at once (default 1)"},
        {"max-lora-rank", "R", "vLLM's largest LoRA rank (default 16)"},
        {"kv-offloading-size", "GIB",
         "vLLM's native KV offloading: host memory for KV blocks evicted from the GPUs, all "
         "ranks together"},
        {"kv-offloading-backend", "B",
         "vLLM's offloading backend: native (lmcache sizes its own store)"},
        {"cpu-offload-gb", "GIB",
         "vLLM's weights kept in host memory per GPU, streamed over PCIe each step"},
        {"speculative-method", "M",
         "speculative decoding: mtp (the checkpoint's MTP modules), eagle, eagle3 or ngram"},
        {"num-speculative-tokens", "K", "tokens drafted a step (1 to 16)"},
        {"acceptance-rate", "X",
         "the chance a drafted token is kept (default: the method's: mtp 0.85, eagle3 0.82, "
         "eagle 0.70, ngram 0.30)"},
        {"speculative-config", "JSON",
         "vLLM's spelling: {\"method\": \"mtp\", \"num_speculative_tokens\": 3}"},
        {"enable-dp-attention", nullptr,
         "--tp as SGLang's and TensorRT-LLM's tp_size: every rank, --dp of them attention groups "
         "(attention TP = tp / dp)"},
        {"pp", "N", "pipeline stages (default: GPUs / (TP x DP))"},
        {"context", "N",
         "max_model_len: the longest request, in tokens (32k, 128K, 1M); under --engine "
         "llama.cpp, llama-server's -c: every slot's context together, split among --parallel "
         "(a scenario's context, as the app's, is one slot's)"},
        {"average-tokens", "N", "the mean request length (default: the context)"},
        {"prompt-tokens", "N", "the prompt the TTFT figure is for (default: the average)"},
        {"engine", "E",
         "vllm (the newest release), vllm@X.Y[.Z], vllm-v0, sglang[@X.Y.Z], trtllm[@X.Y] or "
         "llama.cpp[@bNNNN]"},
        {"command", "CMD",
         "a launch command as typed (vllm serve, python -m sglang.launch_server, trtllm-serve, "
         "llama-server): its engine, model and flags, as if given here"},
        {"free-memory-bytes", "B",
         "the free memory per GPU the engine measures before loading (SGLang's avail mem, "
         "TensorRT-LLM's available): replaces the estimate"},
        {"offline", nullptr,
         "vLLM's offline LLM class rather than vllm serve (its batch defaults)"},
        {"utilization", "X", "gpu_memory_utilization (default: the engine's)"},
        {"max-num-batched-tokens", "N", "vLLM's prefill chunk and profiling batch"},
        {"max-num-seqs", "N", "vLLM's limit on requests in a batch"},
        {"block-size", "N", "vLLM's KV block, in tokens (default: by GPU and attention)"},
        {"enforce-eager", nullptr, "vLLM without CUDA graphs: no graph memory reserved"},
        {"decode-context-parallel-size", "N",
         "vLLM decode context parallelism: each GPU keeps 1/N of the tokens (0.10.2+)"},
        {"mamba-cache-mode", "M",
         "vLLM's state layers: none (1 block a request), align (2; default from 0.28) or all"},
        {"available-kv-bytes", "B",
         "vLLM's logged \"Available KV cache memory\" per GPU: skips the memory model"},
        {"weight-dtype", "T", "auto, fp32, bf16, fp16, fp8, int8 or int4 (default auto)"},
        {"kv-dtype", "T", "the KV cache's dtype (default auto: the engine's)"},
        {"weight-bytes", "B", "weights per GPU, instead of the computed figure"},
        {"activation-bytes", "B", "the profiled activation peak per GPU, instead of the estimate"},
        {"overhead-bytes", "B", "non-torch memory per GPU, instead of the estimate"},
        {"cuda-graph-bytes", "B",
         "vLLM's logged \"Estimated CUDA graph memory\" per GPU, instead of the estimate"},
        {"compute-efficiency", "X|FILE",
         "the roofline's fraction of peak FLOP/s (0.55), or a calibration file"},
        {"memory-efficiency", "X|FILE",
         "the roofline's fraction of bandwidth (0.80), or a calibration file"},
        {"calibration", "FILE",
         "a GPU calibration saved by calibrate --save: its efficiencies and host costs"},
        {"mem-fraction-static", "X", "SGLang: the share of memory for weights and KV"},
        {"chunked-prefill-size", "N", "SGLang: the prefill chunk"},
        {"max-running-requests", "N", "SGLang: the limit on running requests"},
        {"page-size", "N", "SGLang: tokens per KV page (default 1)"},
        {"shared-prefix-tokens", "N", "SGLang: a prefix every request shares (radix cache)"},
        {"disable-radix-cache", nullptr,
         "SGLang: no radix cache (hybrid models: one state a running request)"},
        {"max-mamba-cache-size", "N", "SGLang: the request states of a hybrid model, pinned"},
        {"mamba-full-memory-ratio", "X",
         "SGLang: the states' share against the KV's (default 0.9)"},
        {"kv-cache-free-gpu-memory-fraction", "X",
         "TensorRT-LLM: the share of free memory for KV (default 0.9)"},
        {"tokens-per-block", "N", "TensorRT-LLM: tokens per KV block (default 32)"},
        {"max-batch-size", "N", "TensorRT-LLM: the limit on requests in a batch (default 2048)"},
        {"max-num-tokens", "N", "TensorRT-LLM: tokens in one batch (default 8192)"},
        {"max-tokens-in-paged-kv-cache", "N", "TensorRT-LLM: a cap on the KV cache's tokens"},
        {"trtllm-runtime", "pytorch|tensorrt",
         "TensorRT-LLM: the PyTorch backend or a built engine (default: the release's)"},
        {"ubatch", "N", "llama.cpp -ub: the physical batch (default 512; at most -b)"},
        {"batch-size", "N", "llama.cpp -b: the logical batch, which caps -ub (default 2048)"},
        {"parallel", "N", "llama.cpp -np: slots (default auto: 4 over one unified cache)"},
        {"cache-type-k", "T", "llama.cpp: f16, q8_0, q4_0, ... (default f16)"},
        {"cache-type-v", "T",
         "llama.cpp: the V cache's type (a quantized V needs flash attention)"},
        {"flash-attn", "on|off|auto", "llama.cpp -fa (default auto)"},
        {"gpu-layers", "N", "llama.cpp -ngl: layers in VRAM (default all)"},
        {"n-cpu-moe", "N", "llama.cpp: the expert tensors of the first N layers in host memory"},
        {"cpu-moe", nullptr, "llama.cpp: every layer's expert tensors in host memory"},
        {"enable-hierarchical-cache", nullptr,
         "SGLang's HiCache: a host KV pool beside the GPU's (--hicache-ratio, --hicache-size)"},
        {"hicache-ratio", "X",
         "SGLang: the host pool as X times the GPU pool's tokens (default 2)"},
        {"hicache-size", "GB", "SGLang: the host pool's size per rank, overriding the ratio"},
        {"host-cache-size", "BYTES",
         "TensorRT-LLM's kv_cache_config.host_cache_size: a secondary KV pool in host memory"},
        {"override-tensor", "PATTERN=BUFFER,...",
         "llama.cpp's -ot: tensors whose names match PATTERN to BUFFER (CPU keeps experts in host "
         "memory)"},
        {"cpu", "NAME",
         "the host's CPU (README, \"Experts in host memory\", lists them): its memory channels "
         "and speed time experts kept in host memory"},
        {"memory-speed", "MT/S", "the host's DIMMs, when not the CPU maker's fastest (--cpu)"},
        {"host-bandwidth", "GB/S|FILE",
         "the host memory's read rate as the CPU reaches it, or a calibration file (its measured "
         "streaming copy)"},
        {"host-memory", "BYTES", "the host's RAM: a plan that needs more is refused"},
        {"swa-full", nullptr, "llama.cpp: sliding-window layers keep the whole context"},
        {"kv-unified", nullptr, "llama.cpp -kvu: the slots share one KV buffer"},
        {"json", nullptr, "JSON on stdout"},
    };
}

std::vector<Option> planOptions()
{
    std::vector<Option> o = deploymentOptions();
    o.insert(o.end() - 1,
             {{"concurrent", "N", "conversations at once (default 1)"},
              {"requests-per-second", "R", "a request rate instead, by Little's law"},
              {"input-tokens", "N",
               "prompt tokens per request, for the rows' latency (default: the average request "
               "less half the output, within the context)"},
              {"output-tokens", "N", "output tokens per request (default 256)"},
              {"max-ttft", "S", "the longest time to first token allowed, in seconds"},
              {"max-tpot", "S", "the longest time per output token allowed, in seconds"},
              {"unified-clusters", nullptr,
               "also plans of several unified-memory devices (DGX Spark, Jetson)"}});
    return o;
}

const Option kJson{"json", nullptr, "JSON on stdout"};

std::vector<Option> latencyOptions()
{
    std::vector<Option> o = deploymentOptions();
    o.insert(o.end() - 1,
             {{"input-tokens", "N",
               "prompt tokens per request, the mean where they vary (required; "
               "--random-input-len)"},
              {"output-tokens", "N",
               "output tokens per request, the mean where they vary (required; 1: a TTFT-only "
               "run; --random-output-len)"},
              {"random-range-ratio", "X",
               "a benchmark's lengths uniform in [L (1 - X), L (1 + X)] about the means (vllm "
               "bench serve's; its runs only)"},
              {"input-tokens-stdev", "S",
               "a dataset's prompts (ShareGPT's): log-normal about the mean with this standard "
               "deviation in tokens (a benchmark's runs only)"},
              {"output-tokens-stdev", "S",
               "a dataset's outputs: log-normal about the mean with this standard deviation"},
              {"concurrent", "C",
               "a closed loop of C clients; with --requests, a benchmark's run of N requests at "
               "most C at once (vllm bench serve --max-concurrency), stepped through"},
              {"requests-per-second", "R",
               "open-loop Poisson arrivals at R a second (--request-rate; inf: every request "
               "at once)"},
              {"batch", "B", "a static batch of B requests starting together"},
              {"max-load", nullptr,
               "every request sent at once (--request-rate inf), stepped through: the prompts, "
               "the cap's steady state and the drain"},
              {"requests", "N",
               "requests in the run: at a rate or at max load (default 1000), or under "
               "--concurrent (default: clients that never stop; --num-prompts)"},
              {"role", "prefill|decode",
               "one pool of a disaggregated deployment, the other given all it needs: prefill "
               "(prompts in, KV out: input tokens/s) or decode (KV in over RDMA, tokens out)"},
              {"replicas", "N", "copies of the deployment sharing the load (default 1)"},
              {"no-frontend", nullptr, "no HTTP front end in the TTFT (offline benchmarks)"}});
    return o;
}

std::vector<Option> calibrateOptions()
{
    std::vector<Option> o = latencyOptions();
    o.insert(o.end() - 1,
             {{"benchmark", "FILE",
               "a benchmark's output: vllm bench serve (printed or --save-result JSON), SGLang "
               "bench_serving (printed or JSONL), llama-bench (table, CSV, JSON)"},
              {"point", "LABEL", "the point to fit on (default: the lightest load)"},
              {"ttft-ms", "X", "without --benchmark: the mean TTFT measured at the load given"},
              {"tpot-ms", "X", "without --benchmark: the mean TPOT measured at the load given"},
              {"save", "FILE", "write the calibration, for --calibration FILE (also -o FILE)"}});
    return o;
}

std::vector<Command> makeCommands()
{
    return {
        {"inspect",
         "MODEL",
         "a model's parameters, weight bytes, KV cache per token and per conversation",
         {{"context", "N", "the conversation length kv_bytes is for (default: the maximum)"},
          {"kv-dtype", "T", "the KV cache's dtype (default: the engine's auto)"},
          {"weight-dtype", "T", "the weights' dtype (default: the checkpoint's)"},
          kJson},
         runInspect},
        {"models",
         "",
         "the bundled models: name, Hugging Face id, attention, parameters, KV per token",
         {kJson},
         runModels},
        {"gpus",
         "",
         "the GPU catalog: memory as the runtime reports it, rates, rental price, sources",
         {{"catalog", "FILE", "a GPU catalog file merged over the built-in one"}, kJson},
         runGpus},
        {"flops",
         "",
         "attention's quadratic and linear FLOPs at a length, and where they cross",
         {{"tokens", "N", "the sequence length n (required)"},
          {"d-model", "D", "the model width d (required)"},
          {"layers", "L", "layers (default 1)"},
          kJson},
         runFlops},
        {"capacity", "MODEL",
         "conversations that fit on a GPU at a context, the KV budget, TTFT and TPOT",
         deploymentOptions(), runCapacity},
        {"plan", "MODEL", "the fewest GPUs of each kind for a concurrency or request rate",
         planOptions(), runPlan},
        {"latency", "MODEL",
         "TTFT, TPOT and throughput at a load: clients, a request rate, a batch or saturation",
         latencyOptions(), runLatency},
        {"calibrate", "FILE [MODEL] | MODEL",
         "fit the step model's constants on a benchmark's point (or a typed TTFT/TPOT) and "
         "predict its other points",
         calibrateOptions(), runCalibrate},
        {"log",
         "FILE",
         "a start-up log of vLLM, SGLang, TensorRT-LLM or llama.cpp: its figures beside "
         "attnplan's, and what the same budget gives otherwise",
         {{"model", "MODEL", "the model, where the log names none attnplan can find"},
          {"gpu", "NAME",
           "the GPU it ran on, where the log names none (else an H100 SXM stands in)"},
          {"catalog", "FILE", "a GPU catalog file merged over the built-in one"},
          {"scenario", "OUT.json",
           "also write the scenario the log ran (the app's File > Open start-up log)"},
          kJson},
         runLog},
        {"report",
         "SCENARIO.json",
         "a scenario file (model, deployment, prompt, targets) in full: JSON, Markdown, CSV, "
         "HTML",
         {{"catalog", "FILE", "a GPU catalog file merged over the built-in one"},
          {"prices", "FILE", "a price file merged over the built-in catalog"},
          kJson,
          {"markdown", nullptr, "Markdown on stdout (the default)"},
          {"csv", nullptr, "CSV on stdout"},
          {"html", nullptr,
           "a report to read and send: the headline, memory, latency, engines, plans and cost, "
           "the curves as SVG, printable"}},
         runReport},
        {"cost",
         "",
         "a prompt's price on a hosted API, with and without prompt caching",
         {{"layout", "FILE", "a prompt layout file (README, \"Layout files\")"},
          {"price", "PROVIDER/MODEL", "a catalog entry (attnplan-cli prices)"},
          {"prices", "FILE", "a price file merged over the built-in catalog"},
          {"input-price", "USD_PER_M", "input price instead of a catalog entry"},
          {"output-price", "USD_PER_M", "output price instead of a catalog entry"},
          {"cache-write-multiplier", "X", "a cache write's price over input (1.25)"},
          {"cache-read-multiplier", "Y", "a cache read's price over input (0.1)"},
          {"min-cacheable-tokens", "N", "the provider's minimum cacheable prefix"},
          {"context-window", "N", "the model's context window"},
          {"stable-tokens", "N", "tokens of the stable prefix"},
          {"volatile-tokens", "N", "tokens that change every request"},
          {"question-tokens", "N", "the user's question"},
          {"volatile-first", nullptr, "put the volatile part before the stable one"},
          {"output-tokens", "N", "output tokens per request"},
          {"requests-per-day", "N", "requests a day (10k, 1M)"},
          {"ttl-seconds", "N", "the cache TTL bought (300, 3600, ...)"},
          {"arrival", "even|poisson|bursts", "how requests arrive (default poisson)"},
          {"burst-size", "N", "requests per burst (bursts)"},
          {"concurrency", "N", "requests sent at once"},
          {"explicit-cache", nullptr, "an explicit cache where the provider offers both"},
          {"beta-context", nullptr, "the provider's larger beta context window"},
          {"self-hosted-dollars-per-hour", "USD", "a self-hosted plan's price per hour"},
          {"self-hosted-tokens-per-second", "N", "... and its output tokens per second"},
          {"self-hosted-prefill-tokens-per-second", "N", "... and its prompt tokens per second"},
          {"off-peak-share", "X", "the share of requests in off-peak hours (DeepSeek), 0 to 1"},
          {"corpus-tokens", "N", "retrieval instead: the corpus size"},
          {"chunk-tokens", "N", "retrieval: tokens per chunk"},
          {"top-k", "K", "retrieval: chunks per request"},
          kJson},
         runCost},
        {"prices",
         "[check FILE]",
         "the price catalog in use; prices check FILE compares a file (ours or LiteLLM's)",
         {{"prices", "FILE", "a price file merged over the built-in catalog"}, kJson},
         runPrices},
        {"estimate-tokens",
         "FILE|-",
         "a token count estimated from text",
         {kJson},
         runEstimateTokens},
        {"bench",
         "",
         "time the live attention kernels on this machine (README, \"Calibration\")",
         {{"tokens", "N,N,...", "prompt lengths (prefill) or cache lengths (decode)"},
          {"heads", "H", "query heads"},
          {"kv-heads", "K", "KV heads"},
          {"head-dim", "D", "head dimension"},
          {"model", "MODEL", "a model's heads, KV heads and head dim"},
          {"causal", nullptr, "causal prefill"},
          {"decode", nullptr, "decode against a cache instead of prefill"},
          {"decode-kv-heads", "K,K,...", "decode at several KV-head counts"},
          {"threads", "T", "threads (default: all cores)"},
          {"repeats", "R", "timed repeats per size"},
          {"naive-max-tokens", "N", "the longest prompt the naive kernel runs"},
          {"no-naive", nullptr, "skip the naive kernel"},
          {"no-ceilings", nullptr, "skip the FMA, SGEMM and copy ceilings"},
          {"scalar", nullptr, "the portable scalar path"},
          {"isa", "ISA",
           "avx2, avx512 or scalar: the path every kernel takes (default: the widest this CPU "
           "runs)"},
          {"save-calibration", "FILE", "save the measured efficiencies for --*-efficiency"},
          kJson},
         runBench},
    };
}

} // namespace

const std::vector<Command>& commands()
{
    static const std::vector<Command> table = makeCommands();
    return table;
}

const Command* findCommand(const std::string& name)
{
    for (const Command& c : commands())
        if (name == c.name)
            return &c;
    return nullptr;
}

const std::vector<Option>& optionsOf(const std::string& command)
{
    const Command* c = findCommand(command);
    if (!c)
        throw UsageError("internal: no option table for \"" + command + "\"");
    return c->options;
}

std::string overallUsage()
{
    std::ostringstream out;
    out << "usage: attnplan-cli COMMAND [options]     (attnplan-cli COMMAND --help for one)\n\n"
           "commands:\n";
    for (const Command& c : commands()) {
        std::string name = c.name;
        name.resize(std::max<size_t>(name.size() + 1, 10), ' ');
        out << "  " << name << c.summary << "\n";
    }
    out << "\noptions:\n"
           "  --help     this text           --version  attnplan-cli's version\n\n"
           "MODEL is a config.json, a model folder, a Hugging Face cache folder, or a bundled "
           "model's name\nor repository id (attnplan-cli models). Sizes in bytes, times in "
           "seconds, money in US dollars.\nCounts take 32k, 128K, 1M (k = 1,024) and 4,096; "
           "byte sizes 44.58GiB and 48GB too.\nExit status: 0 success, 2 bad input or usage.\n";
    return out.str();
}

std::string commandUsage(const Command& c)
{
    std::ostringstream out;
    out << "usage: attnplan-cli " << c.name;
    if (*c.operands)
        out << " " << c.operands;
    if (!c.options.empty())
        out << " [options]";
    out << "\n  " << c.summary << "\n";
    if (!c.options.empty())
        out << "\noptions:\n";
    for (const Option& o : c.options) {
        std::string left = std::string("--") + o.name;
        if (o.value)
            left += std::string(" ") + o.value;
        if (left.size() < 34)
            left.resize(34, ' ');
        else
            left += "\n" + std::string(36, ' ');
        out << "  " << left << o.help << "\n";
    }
    return out.str();
}

} // namespace attnplan::cli
