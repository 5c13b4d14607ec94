! Command-line arguments from Fortran (GETARG, GET_COMMAND_ARGUMENT) in
! every rank, read after the other ranks have finished: libgfortran keeps
! the argument vector of the last rank that started, so every rank's must
! outlive its main. Run as `arguments alpha 42`; prints "arguments ok" on
! rank 0.
program arguments
  use mpi
  implicit none
  character(len=16) :: a0, a1, a2, a3
  integer :: rank, nprocs, ierr, i, bad, token, total
  integer :: status(MPI_STATUS_SIZE)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  bad = 0
  if (rank == 0) then
    ! The others report and leave first.
    do i = 1, nprocs - 1
      call MPI_Recv(token, 1, MPI_INTEGER, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, status, ierr)
      bad = bad + token
    end do
  end if
  call getarg(0, a0)
  call getarg(1, a1)
  call get_command_argument(2, a2)
  call getarg(3, a3)
  if (len_trim(a0) == 0) bad = bad + 1
  if (a1 /= 'alpha' .or. a2 /= '42' .or. a3 /= '') bad = bad + 1
  if (command_argument_count() /= 2) bad = bad + 1
  if (rank /= 0) then
    call MPI_Send(bad, 1, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, ierr)
  else if (bad == 0) then
    write (*, '(A)') 'arguments ok'
  else
    write (*, '(A,I0)') 'arguments WRONG: ', bad
  end if
  call MPI_Finalize(ierr)
end program arguments
