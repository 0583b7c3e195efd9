#pragma once

// The kernels' persistent workers: started on first use, kept for the life of the process, so
// that a short decode call pays a wake-up (microseconds), not a thread start per call.

#include <cstdint>

namespace attnplan::kernels {

using ParallelBody = void (*)(void* context, int thread, int64_t item);

// Calls body(context, t, i) once for every item i in [0, items), on min(threads, items)
// threads: the caller (t = 0) and pooled workers (t = 1, 2, ...). Items are handed out one at
// a time in order, so a thread that finishes early takes the next. Returns when all are done.
// Calls from several threads at once are served one after another.
void parallelFor(int threads, int64_t items, ParallelBody body, void* context);

// Workers started so far (for tests: the pool grows to the largest request and stays).
int pooledWorkers();

} // namespace attnplan::kernels
