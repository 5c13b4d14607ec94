! Fixed-form Fortran 77 with mpif.h: derived datatypes, statuses (the
! sources and tags of wildcard receives, MPI_GET_COUNT, MPI_STATUS_IGNORE,
! MPI_STATUSES_IGNORE), strings in and out, a predefined attribute, and
! the types of MPI_TYPE_CREATE_F90_*.
! Prints "types ok" on rank 0. Needs at least 2 ranks.
      PROGRAM TYPES
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER RANK, NPROCS, IERR, BAD, TOTAL, I, J, COUNT, LEN
      INTEGER VEC, COL, REQS(2), STATUS(MPI_STATUS_SIZE)
      INTEGER F90A, F90B, F90R, SZ, NI, NA, ND, COMB
      INTEGER STATS(MPI_STATUS_SIZE, 2)
      INTEGER GRID(4, 3), ROW(3), BUF(8)
      INTEGER(KIND=MPI_ADDRESS_KIND) TAGUB
      LOGICAL FLAG
      CHARACTER*(MPI_MAX_PROCESSOR_NAME) HOST
      CHARACTER*(MPI_MAX_OBJECT_NAME) NAME
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROCS, IERR)
      BAD = 0
! A row of a column-major 4 x 3 array: 3 integers, stride 4.
      CALL MPI_TYPE_VECTOR(3, 1, 4, MPI_INTEGER, VEC, IERR)
      CALL MPI_TYPE_COMMIT(VEC, IERR)
      CALL MPI_TYPE_CONTIGUOUS(2, MPI_INTEGER, COL, IERR)
      CALL MPI_TYPE_COMMIT(COL, IERR)
      IF (RANK .EQ. 0) THEN
         DO 11 J = 1, 3
            DO 10 I = 1, 4
               GRID(I, J) = 10 * I + J
   10       CONTINUE
   11    CONTINUE
         CALL MPI_SEND(GRID(2, 1), 1, VEC, 1, 7, MPI_COMM_WORLD, IERR)
         CALL MPI_SEND(GRID(1, 2), 3, COL, 1, 8, MPI_COMM_WORLD, IERR)
      ELSE IF (RANK .EQ. 1) THEN
         CALL MPI_RECV(ROW, 3, MPI_INTEGER, MPI_ANY_SOURCE,
     &        MPI_ANY_TAG, MPI_COMM_WORLD, STATUS, IERR)
         IF (STATUS(MPI_SOURCE) .NE. 0) BAD = BAD + 1
         IF (STATUS(MPI_TAG) .NE. 7) BAD = BAD + 1
         CALL MPI_GET_COUNT(STATUS, MPI_INTEGER, COUNT, IERR)
         IF (COUNT .NE. 3) BAD = BAD + 1
         DO 20 J = 1, 3
            IF (ROW(J) .NE. 20 + J) BAD = BAD + 1
   20    CONTINUE
         CALL MPI_RECV(BUF, 8, MPI_INTEGER, 0, 8, MPI_COMM_WORLD,
     &        MPI_STATUS_IGNORE, IERR)
         DO 30 I = 1, 6
            IF (BUF(I) .NE. GRID0(I)) BAD = BAD + 1
   30    CONTINUE
      END IF
! Non-blocking exchange in pairs, statuses ignored.
      IF (RANK .LT. NPROCS - MOD(NPROCS, 2)) THEN
         J = RANK + 1 - 2 * MOD(RANK, 2)
         CALL MPI_IRECV(I, 1, MPI_INTEGER, J, 9, MPI_COMM_WORLD,
     &        REQS(1), IERR)
         CALL MPI_ISEND(RANK, 1, MPI_INTEGER, J, 9, MPI_COMM_WORLD,
     &        REQS(2), IERR)
         CALL MPI_WAITALL(2, REQS, MPI_STATUSES_IGNORE, IERR)
         IF (I .NE. J) BAD = BAD + 1
         CALL MPI_IRECV(I, 1, MPI_INTEGER, J, 10, MPI_COMM_WORLD,
     &        REQS(1), IERR)
         CALL MPI_ISEND(RANK, 1, MPI_INTEGER, J, 10, MPI_COMM_WORLD,
     &        REQS(2), IERR)
         CALL MPI_WAITALL(2, REQS, STATS, IERR)
         IF (STATS(MPI_SOURCE, 1) .NE. J) BAD = BAD + 1
      END IF
      CALL MPI_TYPE_FREE(VEC, IERR)
      CALL MPI_TYPE_FREE(COL, IERR)
! SELECTED_INT_KIND(9) is 4 bytes; asking twice gives the same handle.
      CALL MPI_TYPE_CREATE_F90_INTEGER(9, F90A, IERR)
      CALL MPI_TYPE_CREATE_F90_INTEGER(9, F90B, IERR)
      CALL MPI_TYPE_SIZE(F90A, SZ, IERR)
      IF (SZ .NE. 4 .OR. F90A .NE. F90B) BAD = BAD + 1
      CALL MPI_TYPE_GET_ENVELOPE(F90A, NI, NA, ND, COMB, IERR)
      IF (COMB .NE. MPI_COMBINER_F90_INTEGER) BAD = BAD + 1
      IF (NI .NE. 1) BAD = BAD + 1
! SELECTED_REAL_KIND(15) is 8 bytes.
      CALL MPI_TYPE_CREATE_F90_REAL(15, MPI_UNDEFINED, F90R, IERR)
      CALL MPI_TYPE_SIZE(F90R, SZ, IERR)
      IF (SZ .NE. 8) BAD = BAD + 1
! Strings: a name set and read back, the processor's name.
      CALL MPI_COMM_SET_NAME(MPI_COMM_WORLD, 'the world   ', IERR)
      CALL MPI_COMM_GET_NAME(MPI_COMM_WORLD, NAME, LEN, IERR)
      IF (NAME .NE. 'the world' .OR. LEN .NE. 9) BAD = BAD + 1
      CALL MPI_GET_PROCESSOR_NAME(HOST, LEN, IERR)
      IF (LEN .LE. 0 .OR. HOST(LEN+1:LEN+1) .NE. ' ') BAD = BAD + 1
      CALL MPI_COMM_GET_ATTR(MPI_COMM_WORLD, MPI_TAG_UB, TAGUB, FLAG,
     &     IERR)
      IF (.NOT. FLAG .OR. TAGUB .LT. 32767) BAD = BAD + 1
      CALL MPI_REDUCE(BAD, TOTAL, 1, MPI_INTEGER, MPI_SUM, 0,
     &     MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0) THEN
         IF (TOTAL .EQ. 0) THEN
            WRITE (*, '(A)') 'types ok'
         ELSE
            WRITE (*, '(A,I0)') 'types WRONG: ', TOTAL
         END IF
      END IF
      CALL MPI_FINALIZE(IERR)
      CONTAINS
      INTEGER FUNCTION GRID0(K)
      INTEGER K
! GRID(1:4, 2:3) column-major, as rank 0 filled it: 10 * I + J.
      GRID0 = 10 * (MOD(K - 1, 4) + 1) + 2 + (K - 1) / 4
      END FUNCTION
      END
