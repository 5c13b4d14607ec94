// C++ through smpicxx: iostream, std::vector, a class with a global
// constructor per rank, and std::exit in one rank.
#include <mpi.h>
#include <cstdlib>
#include <iostream>
#include <numeric>
#include <vector>

struct Counter {
    int value = 0;
    Counter() { value = 1; }  // runs once per private copy of the program
};
static Counter counter;

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    counter.value += rank;
    std::vector<int> mine(4, rank), sum(4, 0);
    MPI_Allreduce(mine.data(), sum.data(), 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int expected = size * (size - 1) / 2;
    bool ok = std::accumulate(sum.begin(), sum.end(), 0) == 4 * expected && counter.value == rank + 1;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        std::cout << "cxx " << (ok ? "ok" : "WRONG") << " sum " << sum[0] << std::endl;
    MPI_Finalize();
    if (!ok)
        std::exit(1);
    return 0;
}
