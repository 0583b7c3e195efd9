#include "kernels/ThreadPool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace attnplan::kernels {

namespace {

class Pool
{
public:
    ~Pool()
    {
        {
            std::lock_guard lock(m_mutex);
            m_stop = true;
        }
        m_wake.notify_all();
        for (std::thread& t : m_workers)
            t.join();
    }

    void run(int threads, int64_t items, ParallelBody body, void* context)
    {
        const int n = int(std::clamp<int64_t>(items, 1, std::max(1, threads)));
        if (n == 1) {
            for (int64_t i = 0; i < items; ++i)
                body(context, 0, i);
            return;
        }
        std::lock_guard one(m_submit); // one job at a time
        {
            std::lock_guard lock(m_mutex);
            while (int(m_workers.size()) < n - 1) {
                const int index = int(m_workers.size()) + 1;
                m_workers.emplace_back([this, index] { workerLoop(index); });
            }
            m_body = body;
            m_context = context;
            m_items = items;
            m_threads = n;
            m_next.store(0);
            m_pending = n - 1;
            ++m_generation;
        }
        m_wake.notify_all();
        work(0, body, context, items);
        std::unique_lock lock(m_mutex);
        m_finished.wait(lock, [this] { return m_pending == 0; });
    }

    int workers()
    {
        std::lock_guard lock(m_mutex);
        return int(m_workers.size());
    }

private:
    void work(int thread, ParallelBody body, void* context, int64_t items)
    {
        for (int64_t i = m_next.fetch_add(1); i < items; i = m_next.fetch_add(1))
            body(context, thread, i);
    }

    void workerLoop(int index)
    {
        uint64_t seen = 0;
        std::unique_lock lock(m_mutex);
        for (;;) {
            m_wake.wait(lock, [&] { return m_stop || m_generation != seen; });
            if (m_stop)
                return;
            seen = m_generation;
            if (index >= m_threads)
                continue; // this job asked for fewer threads
            const ParallelBody body = m_body;
            void* const context = m_context;
            const int64_t items = m_items;
            lock.unlock();
            work(index, body, context, items);
            lock.lock();
            if (--m_pending == 0)
                m_finished.notify_one();
        }
    }

    std::mutex m_submit;
    std::mutex m_mutex; // guards everything below but m_next
    std::condition_variable m_wake, m_finished;
    std::vector<std::thread> m_workers;
    uint64_t m_generation = 0;
    ParallelBody m_body = nullptr;
    void* m_context = nullptr;
    int64_t m_items = 0;
    int m_threads = 0;
    int m_pending = 0;
    bool m_stop = false;
    std::atomic<int64_t> m_next{0};
};

Pool& pool()
{
    static Pool p;
    return p;
}

} // namespace

void parallelFor(int threads, int64_t items, ParallelBody body, void* context)
{
    if (items > 0)
        pool().run(threads, items, body, context);
}

int pooledWorkers()
{
    return pool().workers();
}

} // namespace attnplan::kernels
