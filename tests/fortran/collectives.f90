! Collectives from Fortran, every result checked: broadcast, reductions
! of INTEGER and DOUBLE PRECISION (in place too), gathers, scatters,
! all-to-all, a user-defined operation, a split communicator, and the
! simulated clock. Prints "collectives ok" on rank 0.
subroutine absmax(invec, inoutvec, len, datatype)
  implicit none
  integer :: len, datatype, i
  double precision :: invec(len), inoutvec(len)
  do i = 1, len
    inoutvec(i) = max(abs(invec(i)), abs(inoutvec(i)))
  end do
end subroutine absmax

program collectives
  use mpi
  implicit none
  external absmax
  integer :: rank, size, ierr, i, bad, op, half, sub_rank, sub_size
  integer :: ival, isum, sendbuf(4), root_vals(64)
  integer, allocatable :: all_ranks(:), a2a_in(:), a2a_out(:)
  double precision :: x, xsum, v(2), t0, t1
  integer :: half_comm

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  bad = 0
  t0 = MPI_Wtime()

  ival = -1
  if (rank == 0) ival = 42
  call MPI_Bcast(ival, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  if (ival /= 42) bad = bad + 1

  call MPI_Reduce(rank, isum, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. isum /= size * (size - 1) / 2) bad = bad + 1

  x = dble(rank) + 0.25d0
  call MPI_Allreduce(x, xsum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (abs(xsum - (dble(size * (size - 1)) / 2 + 0.25d0 * size)) > 1d-9) bad = bad + 1

  isum = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, isum, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (isum /= size) bad = bad + 1

  allocate (all_ranks(size), a2a_in(size), a2a_out(size))
  call MPI_Allgather(rank, 1, MPI_INTEGER, all_ranks, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do i = 1, size
    if (all_ranks(i) /= i - 1) bad = bad + 1
  end do

  call MPI_Gather(rank * 2, 1, MPI_INTEGER, root_vals, 1, MPI_INTEGER, size - 1, &
      MPI_COMM_WORLD, ierr)
  if (rank == size - 1) then
    do i = 1, size
      if (root_vals(i) /= 2 * (i - 1)) bad = bad + 1
    end do
  end if

  do i = 1, 4
    sendbuf(i) = 100 + i
  end do
  call MPI_Scatter(sendbuf, 1, MPI_INTEGER, ival, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  if (rank < 4 .and. ival /= 101 + rank) bad = bad + 1

  do i = 1, size
    a2a_in(i) = 1000 * rank + (i - 1)
  end do
  call MPI_Alltoall(a2a_in, 1, MPI_INTEGER, a2a_out, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do i = 1, size
    if (a2a_out(i) /= 1000 * (i - 1) + rank) bad = bad + 1
  end do

  call MPI_Op_create(absmax, .true., op, ierr)
  v(1) = -dble(rank)
  v(2) = dble(rank) / 2
  call MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE_PRECISION, op, MPI_COMM_WORLD, ierr)
  if (v(1) /= dble(size - 1) .or. v(2) /= dble(size - 1) / 2) bad = bad + 1
  call MPI_Op_free(op, ierr)

  half = 0
  if (2 * rank >= size) half = 1
  call MPI_Comm_split(MPI_COMM_WORLD, half, -rank, half_comm, ierr)
  call MPI_Comm_rank(half_comm, sub_rank, ierr)
  call MPI_Comm_size(half_comm, sub_size, ierr)
  call MPI_Allreduce(1, isum, 1, MPI_INTEGER, MPI_SUM, half_comm, ierr)
  if (isum /= sub_size) bad = bad + 1
  call MPI_Comm_free(half_comm, ierr)

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  t1 = MPI_Wtime()
  if (t1 < t0) bad = bad + 1

  call MPI_Reduce(bad, isum, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (isum == 0) then
      write (*, '(A)') 'collectives ok'
    else
      write (*, '(A,I0)') 'collectives WRONG: ', isum
    end if
  end if
  call MPI_Finalize(ierr)
end program collectives
