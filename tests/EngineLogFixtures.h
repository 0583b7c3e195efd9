#pragma once
// Test support: start-up logs the app's tests open, as the engines printed them (the lines the
// readers use). The vLLM and llama.cpp ones are public logs of ../shared (vllm-logs:
// dennislee22-qwen2-7b-1gpu-u0.5; engine-logs: llamacpp-9016), kept here so that a user's clone
// runs these tests too; the SGLang one is made to Llama-3.1-8B's hand-worked figures.

namespace attnplan::testing {

// vLLM 0.10.1.1, Qwen2-7B-Instruct on one A100 80GB (not named in the log), utilization 0.5,
// max_num_batched_tokens 2048.
inline const char* const kQwen2VllmLog =
    "(APIServer pid=2739) INFO 09-04 01:28:28 [api_server.py:1805] vLLM API server version "
    "0.10.1.1\n"
    "(APIServer pid=2739) INFO 09-04 01:28:28 [utils.py:326] non-default args: {'model_tag': "
    "'Qwen2-7B-Instruct', 'port': 8081, 'model': 'Qwen2-7B-Instruct', 'max_model_len': 16384, "
    "'gpu_memory_utilization': 0.5}\n"
    "(APIServer pid=2739) INFO 09-04 01:28:44 [scheduler.py:222] Chunked prefill is enabled with "
    "max_num_batched_tokens=2048.\n"
    "(EngineCore_0 pid=2881) INFO 09-04 01:29:05 [gpu_model_runner.py:2007] Model loading took "
    "14.2488 GiB and 2.993822 seconds\n"
    "(EngineCore_0 pid=2881) INFO 09-04 01:29:25 [gpu_worker.py:276] Available KV cache memory: "
    "24.83 GiB\n"
    "(EngineCore_0 pid=2881) INFO 09-04 01:29:26 [kv_cache_utils.py:849] GPU KV cache size: "
    "464,848 tokens\n"
    "(EngineCore_0 pid=2881) INFO 09-04 01:29:26 [kv_cache_utils.py:853] Maximum concurrency for "
    "16,384 tokens per request: 28.37x\n";

// vLLM 0.15.2rc1, Qwen3-Coder-30B-A3B-Instruct-FP8 under PP 2 on an RTX 5070 Ti and an RTX 5090 D:
// the start-up that failed its KV check (vllm-project/vllm#34076, as in
// ../shared/engine-logs-2026).
inline const char* const kMixedGpuPp2VllmLog =
    "0: NVIDIA GeForce RTX 5070 Ti 16303MiB\n"
    "1: NVIDIA GeForce RTX 5090 D 32607MiB\n"
    "vllm-0.15.2rc1.dev93+g11a4c9d30.cu128-cp312-cp312-linux_x86_64.whl\n"
    "`bash VLLM_PP_LAYER_PARTITION=16,32 CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=0,1 "
    "vllm "
    "serve ./Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8 --gpu-memory-utilization 0.9 "
    "--served-model-name Qwen3-Coder-30B-A3B-Instruct-FP8 --pipeline-parallel-size 2 "
    "--enable-chunked-prefill --enable-auto-tool-choice --tool-call-parser qwen3_coder`\n"
    "`(EngineCore_DP0 pid=1094) ValueError: To serve at least one request with the models's max "
    "seq len (262144), (24.0 GiB KV cache is needed, which is larger than the available KV cache "
    "memory (3.18 GiB). Based on the available memory, the estimated maximum model length is "
    "34736. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
    "initializing the engine.\n";

// SGLang (dated 2025-02: sglang@0.4.0), Llama-3.1-8B: its 14.96 GiB of bf16 weights loaded,
// rest = 5.04 - 20 x (1 - 0.88) = 2.64 GiB, 2.64 GiB / 131,072 B = 21,626 tokens.
inline const char* const kSglangLlama31Log =
    "[2025-02-01 10:00:00] server_args=ServerArgs(model_path='meta-llama/Llama-3.1-8B', "
    "mem_fraction_static=0.88, tp_size=1, page_size=1, context_length=8192)\n"
    "[2025-02-01 10:00:01 TP0] Load weight begin. avail mem=20.00 GB\n"
    "[2025-02-01 10:00:05 TP0] Load weight end. type=LlamaForCausalLM, avail mem=5.04 GB\n"
    "[2025-02-01 10:00:05 TP0] KV Cache is allocated. #tokens: 21626, K size: 1.32 GB\n";

// llama.cpp issue #9016: Meta-Llama-3-8B (not bundled) on an RTX 3090, build 3579, -np 4.
inline const char* const kLlamaCpp9016Log =
    "> ./srvr --model models/opt/${model_name}-${quantization}.gguf --n-gpu-layers 99 -np 4\n"
    "INFO [                    main] build info | tid=\"139894354608128\" "
    "timestamp=1723538705 build=3579 commit=\"fc4ca27b\"\n"
    "llm_load_print_meta: general.name     = Meta-Llama-3-8B\n"
    "  Device 0: NVIDIA GeForce RTX 3090, compute capability 8.6, VMM: yes\n"
    "llm_load_tensors: offloaded 33/33 layers to GPU\n"
    "llm_load_tensors:        CPU buffer size =   281.81 MiB\n"
    "llm_load_tensors:      CUDA0 buffer size =  4155.99 MiB\n"
    "llama_new_context_with_model: n_ctx      = 8192\n"
    "llama_new_context_with_model: n_batch    = 2048\n"
    "llama_new_context_with_model: n_ubatch   = 512\n"
    "llama_new_context_with_model: flash_attn = 0\n"
    "llama_new_context_with_model: freq_base  = 500000.0\n"
    "llama_new_context_with_model: freq_scale = 1\n"
    "llama_kv_cache_init:      CUDA0 KV buffer size =  1024.00 MiB\n";

} // namespace attnplan::testing
