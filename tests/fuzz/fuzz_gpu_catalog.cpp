// libFuzzer target: a user's GPU catalog, then a plan on every entry it accepted.
#include "engines/Planner.h"
#include "engines/ServingEngine.h"
#include "read/ConfigReader.h"
#include "serve/GpuCatalog.h"
#include "serve/Memory.h"
#include "serve/Roofline.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace attnplan;
    auto c =
        parseGpuCatalog(std::string(reinterpret_cast<const char*>(data), size), "fuzz-gpus.json");
    if (!c)
        return 0;
    static const ModelSpec spec =
        parseModelConfig(
            R"({"model_type":"llama","hidden_size":512,"num_hidden_layers":4,"num_attention_heads":8,
            "num_key_value_heads":2,"vocab_size":1000,"intermediate_size":1024,
            "max_position_embeddings":4096,"tie_word_embeddings":false})",
            "fuzz-model.json")
            .value();
    for (const GpuSpec& g : c->gpus) {
        DeploymentInputs in;
        in.gpu = g;
        in.maxModelLen = 2048;
        planCapacity(spec, in);
    }
    return 0;
}
