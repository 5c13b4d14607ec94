! Per-rank Fortran state under smpirun: a module variable, a COMMON
! block and a SAVEd local must each be private to a rank, as C globals
! are. Every rank sets them from its rank, passes a token around a ring
! (each hop switches ranks), and checks after every hop that nothing of
! another rank leaked in. Prints one line per rank and "ring ok" on 0.
module ring_data
  implicit none
  integer :: my_id = -1
end module ring_data

subroutine tick(count)
  implicit none
  integer, intent(out) :: count
  integer, save :: calls = 0
  calls = calls + 1
  count = calls
end subroutine tick

program ring_state
  use mpi
  use ring_data
  implicit none
  integer :: rank, size, ierr, token, hop, count, next, prev, bad
  integer :: status(MPI_STATUS_SIZE)
  integer :: shared_id
  double precision :: scaled
  common /ring_block/ scaled, shared_id

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  my_id = rank
  shared_id = 10 * rank
  scaled = 0.5d0 * rank
  next = mod(rank + 1, size)
  prev = mod(rank + size - 1, size)
  bad = 0
  do hop = 1, 3
    if (rank == 0) then
      token = hop
      call MPI_Send(token, 1, MPI_INTEGER, next, hop, MPI_COMM_WORLD, ierr)
      call MPI_Recv(token, 1, MPI_INTEGER, prev, hop, MPI_COMM_WORLD, status, ierr)
    else
      call MPI_Recv(token, 1, MPI_INTEGER, prev, hop, MPI_COMM_WORLD, status, ierr)
      call MPI_Send(token, 1, MPI_INTEGER, next, hop, MPI_COMM_WORLD, ierr)
    end if
    call tick(count)
    if (token /= hop) bad = bad + 1
    if (status(MPI_SOURCE) /= prev .or. status(MPI_TAG) /= hop) bad = bad + 1
    if (my_id /= rank .or. shared_id /= 10 * rank) bad = bad + 1
    if (scaled /= 0.5d0 * rank .or. count /= hop) bad = bad + 1
  end do
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  write (*, '(A,I0,A,I0,A,I0,A,I0)') 'rank ', rank, ': module ', my_id, &
      ', common ', shared_id, ', saved calls ', count
  call MPI_Allreduce(MPI_IN_PLACE, bad, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (bad == 0) then
      write (*, '(A)') 'ring ok'
    else
      write (*, '(A,I0)') 'ring WRONG: ', bad
    end if
  end if
  call MPI_Finalize(ierr)
end program ring_state
