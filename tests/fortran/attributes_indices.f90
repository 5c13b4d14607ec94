! Fortran callbacks and Fortran conventions: keyvals with user copy and
! delete callbacks (called with everything by reference), the predefined
! MPI_COMM_DUP_FN and MPI_NULL_DELETE_FN procedures, MPI-1 attributes
! with INTEGER values, a generalized request whose callbacks update the
! program's extra state in place, and the 1-based request indices of
! MPI_WAITANY and MPI_WAITSOME. Prints "attributes ok" on rank 0.
module callback_counts
  implicit none
  integer :: copies = 0, deletes = 0
end module callback_counts

subroutine copy_plus_one(oldcomm, keyval, extra, valin, valout, flag, ierr)
  use mpi
  use callback_counts
  implicit none
  integer :: oldcomm, keyval, ierr
  integer(kind=MPI_ADDRESS_KIND) :: extra, valin, valout
  logical :: flag
  copies = copies + 1
  valout = valin + extra
  flag = .true.
  ierr = MPI_SUCCESS
end subroutine copy_plus_one

subroutine count_delete(comm, keyval, val, extra, ierr)
  use mpi
  use callback_counts
  implicit none
  integer :: comm, keyval, ierr
  integer(kind=MPI_ADDRESS_KIND) :: val, extra
  deletes = deletes + 1
  ierr = MPI_SUCCESS
end subroutine count_delete

subroutine greq_query(extra, status, ierr)
  use mpi
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra
  integer :: status(MPI_STATUS_SIZE), ierr
  call MPI_Status_set_elements(status, MPI_INTEGER, 3, ierr)
  call MPI_Status_set_cancelled(status, .false., ierr)
  status(MPI_SOURCE) = MPI_UNDEFINED
  status(MPI_TAG) = MPI_UNDEFINED
  extra = extra + 10
  ierr = MPI_SUCCESS
end subroutine greq_query

subroutine greq_free(extra, ierr)
  use mpi
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra
  integer :: ierr
  extra = extra + 100
  ierr = MPI_SUCCESS
end subroutine greq_free

subroutine greq_cancel(extra, complete, ierr)
  use mpi
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra
  logical :: complete
  integer :: ierr
  ierr = MPI_SUCCESS
end subroutine greq_cancel

program attributes_indices
  use mpi
  use callback_counts
  implicit none
  external copy_plus_one, count_delete, greq_query, greq_free, greq_cancel
  integer :: rank, nprocs, ierr, bad, total, key, key2, old_key, dup, index, outcount
  integer :: reqs(3), indices(3), bufs(3), old_val, i, greq, count
  integer :: status(MPI_STATUS_SIZE)
  integer(kind=MPI_ADDRESS_KIND) :: val, extra
  logical :: flag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  bad = 0

  extra = 1000
  call MPI_Comm_create_keyval(copy_plus_one, count_delete, key, extra, ierr)
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, key2, extra, ierr)
  call MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, old_key, 0, ierr)
  val = 7 + rank
  call MPI_Comm_set_attr(MPI_COMM_WORLD, key, val, ierr)
  val = 2_MPI_ADDRESS_KIND**40
  call MPI_Comm_set_attr(MPI_COMM_WORLD, key2, val, ierr)
  call MPI_Attr_put(MPI_COMM_WORLD, old_key, 31, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_get_attr(dup, key, val, flag, ierr)
  if (.not. flag .or. val /= 1007 + rank .or. copies /= 1) bad = bad + 1
  call MPI_Comm_get_attr(dup, key2, val, flag, ierr)
  if (.not. flag .or. val /= 2_MPI_ADDRESS_KIND**40) bad = bad + 1
  call MPI_Attr_get(dup, old_key, old_val, flag, ierr)
  if (.not. flag .or. old_val /= 31) bad = bad + 1
  call MPI_Comm_free(dup, ierr)
  if (deletes /= 1) bad = bad + 1
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, key, ierr)
  if (deletes /= 2) bad = bad + 1
  call MPI_Comm_free_keyval(key, ierr)
  call MPI_Comm_free_keyval(key2, ierr)
  call MPI_Keyval_free(old_key, ierr)

  extra = 1
  call MPI_Grequest_start(greq_query, greq_free, greq_cancel, extra, greq, ierr)
  call MPI_Grequest_complete(greq, ierr)
  call MPI_Wait(greq, status, ierr)
  call MPI_Get_count(status, MPI_INTEGER, count, ierr)
  if (extra /= 111 .or. count /= 3) bad = bad + 1

  ! Requests 1 and 3 are never satisfied by anyone (null), 2 completes.
  reqs(1) = MPI_REQUEST_NULL
  call MPI_Irecv(bufs(2), 1, MPI_INTEGER, rank, 5, MPI_COMM_WORLD, reqs(2), ierr)
  reqs(3) = MPI_REQUEST_NULL
  call MPI_Send(rank + 40, 1, MPI_INTEGER, rank, 5, MPI_COMM_WORLD, ierr)
  call MPI_Waitany(3, reqs, index, MPI_STATUS_IGNORE, ierr)
  if (index /= 2 .or. bufs(2) /= rank + 40) bad = bad + 1
  call MPI_Waitany(3, reqs, index, MPI_STATUS_IGNORE, ierr)
  if (index /= MPI_UNDEFINED) bad = bad + 1
  do i = 1, 3
    call MPI_Irecv(bufs(i), 1, MPI_INTEGER, rank, i, MPI_COMM_WORLD, reqs(i), ierr)
  end do
  call MPI_Send(rank, 1, MPI_INTEGER, rank, 3, MPI_COMM_WORLD, ierr)
  call MPI_Waitsome(3, reqs, outcount, indices, MPI_STATUSES_IGNORE, ierr)
  if (outcount /= 1 .or. indices(1) /= 3) bad = bad + 1
  call MPI_Send(rank, 1, MPI_INTEGER, rank, 1, MPI_COMM_WORLD, ierr)
  call MPI_Send(rank, 1, MPI_INTEGER, rank, 2, MPI_COMM_WORLD, ierr)
  call MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE, ierr)

  call MPI_Reduce(bad, total, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (total == 0) then
      write (*, '(A)') 'attributes ok'
    else
      write (*, '(A,I0)') 'attributes WRONG: ', total
    end if
  end if
  call MPI_Finalize(ierr)
end program attributes_indices
