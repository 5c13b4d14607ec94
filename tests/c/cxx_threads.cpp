// std::thread, std::mutex and std::condition_variable in a rank: the C++
// runtime starts and waits for simulated threads (tests/e2e/threads.rs).
// A thread of each rank takes part in an MPI_Bcast, then hands the value
// to main through a mutex and a condition variable.
#include <mpi.h>

#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

int main(int argc, char **argv) {
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::mutex m;
    std::condition_variable ready;
    int value = -1;
    std::thread t([&] {
        int x = rank == 0 ? 42 : 0;
        MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
        std::lock_guard<std::mutex> guard(m);
        value = x;
        ready.notify_one();
    });
    {
        std::unique_lock<std::mutex> lock(m);
        ready.wait(lock, [&] { return value >= 0; });
    }
    t.join();
    int sum = 0;
    MPI_Reduce(&value, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        std::printf("std::thread: every rank got %d, sum %d\n", value, sum);
    MPI_Finalize();
    return 0;
}
