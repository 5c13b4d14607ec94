/* mpi.h of the smpi-rs MPI emulator (also reached as <smpi/mpi.h>).
 *
 * Handles are integers (MPICH-style ABI), so every predefined handle is a
 * compile-time constant. Only functions the emulator implements are
 * declared; calling anything else fails at link time (smpicc links with
 * undefined symbols rejected). */
#ifndef SMPI_MPI_H
#define SMPI_MPI_H

/* First, as in SimGrid's: defines _GNU_SOURCE before any system header. */
#include <xbt/base.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPI_VERSION 3
#define MPI_SUBVERSION 1
#define SMPI_RS 1

typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Request;
typedef int MPI_Group;
typedef int MPI_Errhandler;
typedef int MPI_Info;
typedef int MPI_Win;
typedef int MPI_Message;
typedef int MPI_File;
typedef intptr_t MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;
typedef int MPI_Fint;

typedef struct MPI_Status {
    int count_lo;
    int count_hi_and_cancelled;
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
} MPI_Status;

/* Null and predefined handles. */
#define MPI_COMM_NULL ((MPI_Comm)0)
#define MPI_COMM_WORLD ((MPI_Comm)1)
#define MPI_COMM_SELF ((MPI_Comm)2)
#define MPI_GROUP_NULL ((MPI_Group)0)
#define MPI_GROUP_EMPTY ((MPI_Group)1)
#define MPI_REQUEST_NULL ((MPI_Request)0)
#define MPI_MESSAGE_NULL ((MPI_Message)0)
#define MPI_MESSAGE_NO_PROC ((MPI_Message)1)
#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0)
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)1)
#define MPI_ERRORS_RETURN ((MPI_Errhandler)2)
#define MPI_INFO_NULL ((MPI_Info)0)
#define MPI_INFO_ENV ((MPI_Info)1)
#define MPI_WIN_NULL ((MPI_Win)0)
#define MPI_FILE_NULL ((MPI_File)0)

#define MPI_DATATYPE_NULL ((MPI_Datatype)0)
#define MPI_CHAR ((MPI_Datatype)1)
#define MPI_SIGNED_CHAR ((MPI_Datatype)2)
#define MPI_UNSIGNED_CHAR ((MPI_Datatype)3)
#define MPI_BYTE ((MPI_Datatype)4)
#define MPI_WCHAR ((MPI_Datatype)5)
#define MPI_SHORT ((MPI_Datatype)6)
#define MPI_UNSIGNED_SHORT ((MPI_Datatype)7)
#define MPI_INT ((MPI_Datatype)8)
#define MPI_UNSIGNED ((MPI_Datatype)9)
#define MPI_LONG ((MPI_Datatype)10)
#define MPI_UNSIGNED_LONG ((MPI_Datatype)11)
#define MPI_LONG_LONG_INT ((MPI_Datatype)12)
#define MPI_LONG_LONG MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG ((MPI_Datatype)13)
#define MPI_FLOAT ((MPI_Datatype)14)
#define MPI_DOUBLE ((MPI_Datatype)15)
#define MPI_LONG_DOUBLE ((MPI_Datatype)16)
#define MPI_INT8_T ((MPI_Datatype)17)
#define MPI_INT16_T ((MPI_Datatype)18)
#define MPI_INT32_T ((MPI_Datatype)19)
#define MPI_INT64_T ((MPI_Datatype)20)
#define MPI_UINT8_T ((MPI_Datatype)21)
#define MPI_UINT16_T ((MPI_Datatype)22)
#define MPI_UINT32_T ((MPI_Datatype)23)
#define MPI_UINT64_T ((MPI_Datatype)24)
#define MPI_C_BOOL ((MPI_Datatype)25)
#define MPI_C_FLOAT_COMPLEX ((MPI_Datatype)26)
#define MPI_C_COMPLEX MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX ((MPI_Datatype)27)
#define MPI_C_LONG_DOUBLE_COMPLEX ((MPI_Datatype)28)
#define MPI_AINT ((MPI_Datatype)29)
#define MPI_OFFSET ((MPI_Datatype)30)
#define MPI_COUNT ((MPI_Datatype)31)
#define MPI_PACKED ((MPI_Datatype)32)
#define MPI_LB ((MPI_Datatype)33)
#define MPI_UB ((MPI_Datatype)34)
#define MPI_FLOAT_INT ((MPI_Datatype)35)
#define MPI_DOUBLE_INT ((MPI_Datatype)36)
#define MPI_LONG_INT ((MPI_Datatype)37)
#define MPI_2INT ((MPI_Datatype)38)
#define MPI_SHORT_INT ((MPI_Datatype)39)
#define MPI_LONG_DOUBLE_INT ((MPI_Datatype)40)
#define MPI_CXX_BOOL ((MPI_Datatype)41)
#define MPI_CXX_FLOAT_COMPLEX ((MPI_Datatype)42)
#define MPI_CXX_DOUBLE_COMPLEX ((MPI_Datatype)43)
#define MPI_CXX_LONG_DOUBLE_COMPLEX ((MPI_Datatype)44)
#define MPI_INTEGER ((MPI_Datatype)45)
#define MPI_REAL ((MPI_Datatype)46)
#define MPI_DOUBLE_PRECISION ((MPI_Datatype)47)
#define MPI_LOGICAL ((MPI_Datatype)48)
#define MPI_CHARACTER ((MPI_Datatype)49)
#define MPI_COMPLEX ((MPI_Datatype)50)
#define MPI_DOUBLE_COMPLEX ((MPI_Datatype)51)
#define MPI_2INTEGER ((MPI_Datatype)52)
#define MPI_2REAL ((MPI_Datatype)53)
#define MPI_2DOUBLE_PRECISION ((MPI_Datatype)54)
#define MPI_INTEGER1 ((MPI_Datatype)55)
#define MPI_INTEGER2 ((MPI_Datatype)56)
#define MPI_INTEGER4 ((MPI_Datatype)57)
#define MPI_INTEGER8 ((MPI_Datatype)58)
#define MPI_REAL4 ((MPI_Datatype)59)
#define MPI_REAL8 ((MPI_Datatype)60)
#define MPI_REAL16 ((MPI_Datatype)61)
#define MPI_COMPLEX8 ((MPI_Datatype)62)
#define MPI_COMPLEX16 ((MPI_Datatype)63)
#define MPI_COMPLEX32 ((MPI_Datatype)64)
#define MPI_INTEGER16 ((MPI_Datatype)65)
#define MPI_TYPECLASS_REAL 1
#define MPI_TYPECLASS_INTEGER 2
#define MPI_TYPECLASS_COMPLEX 3

#define MPI_OP_NULL ((MPI_Op)0)
#define MPI_MAX ((MPI_Op)1)
#define MPI_MIN ((MPI_Op)2)
#define MPI_SUM ((MPI_Op)3)
#define MPI_PROD ((MPI_Op)4)
#define MPI_LAND ((MPI_Op)5)
#define MPI_BAND ((MPI_Op)6)
#define MPI_LOR ((MPI_Op)7)
#define MPI_BOR ((MPI_Op)8)
#define MPI_LXOR ((MPI_Op)9)
#define MPI_BXOR ((MPI_Op)10)
#define MPI_MINLOC ((MPI_Op)11)
#define MPI_MAXLOC ((MPI_Op)12)
#define MPI_REPLACE ((MPI_Op)13)
#define MPI_NO_OP ((MPI_Op)14)

/* Special values. */
#define MPI_ANY_SOURCE (-2)
#define MPI_PROC_NULL (-1)
#define MPI_ROOT (-3)
#define MPI_ANY_TAG (-1)
#define MPI_UNDEFINED (-32766)
#define MPI_KEYVAL_INVALID 0
#define MPI_BSEND_OVERHEAD 96
#define MPI_BOTTOM ((void *)0)
#define MPI_IN_PLACE ((void *)-1)
#define MPI_STATUS_IGNORE ((MPI_Status *)1)
#define MPI_STATUSES_IGNORE ((MPI_Status *)1)
#define MPI_ERRCODES_IGNORE ((int *)0)
#define MPI_ARGV_NULL ((char **)0)
#define MPI_ARGVS_NULL ((char ***)0)

#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_ERROR_STRING 512
#define MPI_MAX_OBJECT_NAME 128
#define MPI_MAX_LIBRARY_VERSION_STRING 8192
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024
#define MPI_MAX_PORT_NAME 256

#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

#define MPI_GRAPH 1
#define MPI_CART 2
#define MPI_DIST_GRAPH 3

#define MPI_COMM_TYPE_SHARED 1

#define MPI_IDENT 0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR 2
#define MPI_UNEQUAL 3

/* Predefined attribute keys. */
#define MPI_TAG_UB 1
#define MPI_HOST 2
#define MPI_IO 3
#define MPI_WTIME_IS_GLOBAL 4
#define MPI_UNIVERSE_SIZE 5
#define MPI_APPNUM 6
#define MPI_LASTUSEDCODE 7

/* Error classes. */
#define MPI_SUCCESS 0
#define MPI_ERR_BUFFER 1
#define MPI_ERR_COUNT 2
#define MPI_ERR_TYPE 3
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_ROOT 7
#define MPI_ERR_GROUP 8
#define MPI_ERR_OP 9
#define MPI_ERR_TOPOLOGY 10
#define MPI_ERR_DIMS 11
#define MPI_ERR_ARG 12
#define MPI_ERR_UNKNOWN 13
#define MPI_ERR_TRUNCATE 14
#define MPI_ERR_OTHER 15
#define MPI_ERR_INTERN 16
#define MPI_ERR_IN_STATUS 17
#define MPI_ERR_PENDING 18
#define MPI_ERR_REQUEST 19
#define MPI_ERR_ACCESS 20
#define MPI_ERR_AMODE 21
#define MPI_ERR_BAD_FILE 22
#define MPI_ERR_CONVERSION 23
#define MPI_ERR_DUP_DATAREP 24
#define MPI_ERR_FILE_EXISTS 25
#define MPI_ERR_FILE_IN_USE 26
#define MPI_ERR_FILE 27
#define MPI_ERR_INFO 28
#define MPI_ERR_INFO_KEY 29
#define MPI_ERR_INFO_VALUE 30
#define MPI_ERR_INFO_NOKEY 31
#define MPI_ERR_IO 32
#define MPI_ERR_KEYVAL 33
#define MPI_ERR_LOCKTYPE 34
#define MPI_ERR_NAME 35
#define MPI_ERR_NO_MEM 36
#define MPI_ERR_NOT_SAME 37
#define MPI_ERR_NO_SPACE 38
#define MPI_ERR_NO_SUCH_FILE 39
#define MPI_ERR_PORT 40
#define MPI_ERR_QUOTA 41
#define MPI_ERR_READ_ONLY 42
#define MPI_ERR_RMA_CONFLICT 43
#define MPI_ERR_RMA_SYNC 44
#define MPI_ERR_SERVICE 45
#define MPI_ERR_SIZE 46
#define MPI_ERR_SPAWN 47
#define MPI_ERR_UNSUPPORTED_DATAREP 48
#define MPI_ERR_UNSUPPORTED_OPERATION 49
#define MPI_ERR_WIN 50
#define MPI_ERR_BASE 51
#define MPI_ERR_RMA_RANGE 52
#define MPI_ERR_RMA_ATTACH 53
#define MPI_ERR_RMA_SHARED 54
#define MPI_ERR_RMA_FLAVOR 55
#define MPI_ERR_LASTCODE 0x3fffffff

/* Datatype combiners. */
#define MPI_COMBINER_NAMED 1
#define MPI_COMBINER_DUP 2
#define MPI_COMBINER_CONTIGUOUS 3
#define MPI_COMBINER_VECTOR 4
#define MPI_COMBINER_HVECTOR 5
#define MPI_COMBINER_INDEXED 6
#define MPI_COMBINER_HINDEXED 7
#define MPI_COMBINER_INDEXED_BLOCK 8
#define MPI_COMBINER_HINDEXED_BLOCK 9
#define MPI_COMBINER_STRUCT 10
#define MPI_COMBINER_SUBARRAY 11
#define MPI_COMBINER_DARRAY 12
#define MPI_COMBINER_RESIZED 13
/* Combiners of the Fortran-only constructors: MPI-1's with INTEGER
 * addresses (named for programs that compare against them; none of our
 * types has them) and MPI_Type_create_f90_*. */
#define MPI_COMBINER_HVECTOR_INTEGER 14
#define MPI_COMBINER_HINDEXED_INTEGER 15
#define MPI_COMBINER_STRUCT_INTEGER 16
#define MPI_COMBINER_F90_REAL 17
#define MPI_COMBINER_F90_COMPLEX 18
#define MPI_COMBINER_F90_INTEGER 19

#define MPI_ORDER_C 56
#define MPI_ORDER_FORTRAN 57
#define MPI_DISTRIBUTE_BLOCK 121
#define MPI_DISTRIBUTE_CYCLIC 122
#define MPI_DISTRIBUTE_NONE 123
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)

typedef int(MPI_Grequest_query_function)(void *extra_state, MPI_Status *status);
typedef int(MPI_Grequest_free_function)(void *extra_state);
typedef int(MPI_Grequest_cancel_function)(void *extra_state, int complete);
typedef void(MPI_User_function)(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);
typedef void(MPI_Comm_errhandler_function)(MPI_Comm *comm, int *error_code, ...);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef int(MPI_Comm_copy_attr_function)(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                                         void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int(MPI_Comm_delete_attr_function)(MPI_Comm comm, int comm_keyval, void *attribute_val,
                                           void *extra_state);
typedef MPI_Comm_copy_attr_function MPI_Copy_function;
typedef MPI_Comm_delete_attr_function MPI_Delete_function;

#define MPI_COMM_NULL_COPY_FN ((MPI_Comm_copy_attr_function *)0)
#define MPI_COMM_NULL_DELETE_FN ((MPI_Comm_delete_attr_function *)0)
#define MPI_NULL_COPY_FN ((MPI_Copy_function *)0)
#define MPI_NULL_DELETE_FN ((MPI_Delete_function *)0)
#define MPI_COMM_DUP_FN ((MPI_Comm_copy_attr_function *)1)
#define MPI_DUP_FN ((MPI_Copy_function *)1)

/* Every function is declared twice: MPI_x and its profiling name PMPI_x. */
#define SMPI_CALL(ret, name, args) ret MPI_##name args; ret PMPI_##name args;

/* Environment. */
SMPI_CALL(int, Init, (int *argc, char ***argv))
SMPI_CALL(int, Init_thread, (int *argc, char ***argv, int required, int *provided))
SMPI_CALL(int, Finalize, (void))
SMPI_CALL(int, Initialized, (int *flag))
SMPI_CALL(int, Finalized, (int *flag))
SMPI_CALL(int, Query_thread, (int *provided))
SMPI_CALL(int, Is_thread_main, (int *flag))
SMPI_CALL(int, Abort, (MPI_Comm comm, int errorcode))
SMPI_CALL(double, Wtime, (void))
SMPI_CALL(double, Wtick, (void))
SMPI_CALL(int, Get_processor_name, (char *name, int *resultlen))
SMPI_CALL(int, Get_version, (int *version, int *subversion))
SMPI_CALL(int, Get_library_version, (char *version, int *resultlen))
SMPI_CALL(int, Pcontrol, (const int level, ...))

/* Communicators (basic). */
SMPI_CALL(int, Comm_rank, (MPI_Comm comm, int *rank))
SMPI_CALL(int, Comm_size, (MPI_Comm comm, int *size))
SMPI_CALL(int, Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm))
SMPI_CALL(int, Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm))
SMPI_CALL(int, Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm))
SMPI_CALL(int, Comm_free, (MPI_Comm *comm))
SMPI_CALL(int, Comm_group, (MPI_Comm comm, MPI_Group *group))
SMPI_CALL(int, Comm_compare, (MPI_Comm comm1, MPI_Comm comm2, int *result))
SMPI_CALL(int, Comm_test_inter, (MPI_Comm comm, int *flag))
SMPI_CALL(int, Comm_get_name, (MPI_Comm comm, char *comm_name, int *resultlen))
SMPI_CALL(int, Comm_set_name, (MPI_Comm comm, const char *comm_name))
SMPI_CALL(int, Comm_get_attr, (MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag))
SMPI_CALL(int, Comm_create_keyval, (MPI_Comm_copy_attr_function *comm_copy_attr_fn, MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval, void *extra_state))
SMPI_CALL(int, Comm_free_keyval, (int *comm_keyval))
SMPI_CALL(int, Comm_set_attr, (MPI_Comm comm, int comm_keyval, void *attribute_val))
SMPI_CALL(int, Comm_delete_attr, (MPI_Comm comm, int comm_keyval))
typedef int(MPI_Type_copy_attr_function)(MPI_Datatype oldtype, int type_keyval, void *extra_state,
                                         void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int(MPI_Type_delete_attr_function)(MPI_Datatype datatype, int type_keyval, void *attribute_val,
                                           void *extra_state);
#define MPI_TYPE_NULL_COPY_FN ((MPI_Type_copy_attr_function *)0)
#define MPI_TYPE_NULL_DELETE_FN ((MPI_Type_delete_attr_function *)0)
#define MPI_TYPE_DUP_FN ((MPI_Type_copy_attr_function *)1)
SMPI_CALL(int, Type_create_keyval, (MPI_Type_copy_attr_function *type_copy_attr_fn, MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval, void *extra_state))
SMPI_CALL(int, Type_free_keyval, (int *type_keyval))
SMPI_CALL(int, Type_set_attr, (MPI_Datatype datatype, int type_keyval, void *attribute_val))
SMPI_CALL(int, Type_get_attr, (MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag))
SMPI_CALL(int, Type_delete_attr, (MPI_Datatype datatype, int type_keyval))
/* MPI-1 names of the attribute calls. */
SMPI_CALL(int, Keyval_create, (MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval, void *extra_state))
SMPI_CALL(int, Keyval_free, (int *keyval))
SMPI_CALL(int, Attr_put, (MPI_Comm comm, int keyval, void *attribute_val))
SMPI_CALL(int, Attr_get, (MPI_Comm comm, int keyval, void *attribute_val, int *flag))
SMPI_CALL(int, Attr_delete, (MPI_Comm comm, int keyval))
SMPI_CALL(int, Comm_idup, (MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request))
SMPI_CALL(int, Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm))
SMPI_CALL(int, Comm_idup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request))
SMPI_CALL(int, Comm_set_info, (MPI_Comm comm, MPI_Info info))
SMPI_CALL(int, Comm_get_info, (MPI_Comm comm, MPI_Info *info_used))
SMPI_CALL(int, Comm_split_type, (MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm))
SMPI_CALL(int, Dims_create, (int nnodes, int ndims, int dims[]))
SMPI_CALL(int, Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm))
SMPI_CALL(int, Intercomm_create, (MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag, MPI_Comm *newintercomm))
SMPI_CALL(int, Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm *newintracomm))
SMPI_CALL(int, Comm_remote_size, (MPI_Comm comm, int *size))
SMPI_CALL(int, Comm_remote_group, (MPI_Comm comm, MPI_Group *group))

/* Groups. */
SMPI_CALL(int, Group_size, (MPI_Group group, int *size))
SMPI_CALL(int, Group_rank, (MPI_Group group, int *rank))
SMPI_CALL(int, Group_free, (MPI_Group *group))
SMPI_CALL(int, Group_incl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup))
SMPI_CALL(int, Group_excl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup))
SMPI_CALL(int, Group_range_incl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup))
SMPI_CALL(int, Group_range_excl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup))
SMPI_CALL(int, Group_translate_ranks, (MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]))
SMPI_CALL(int, Group_compare, (MPI_Group group1, MPI_Group group2, int *result))
SMPI_CALL(int, Group_union, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
SMPI_CALL(int, Group_intersection, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
SMPI_CALL(int, Group_difference, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))

/* Point-to-point. */
SMPI_CALL(int, Send, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
SMPI_CALL(int, Ssend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
SMPI_CALL(int, Bsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
SMPI_CALL(int, Rsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
SMPI_CALL(int, Isend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
SMPI_CALL(int, Issend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
SMPI_CALL(int, Ibsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
SMPI_CALL(int, Irsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
SMPI_CALL(int, Recv, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status))
SMPI_CALL(int, Irecv, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request))
SMPI_CALL(int, Sendrecv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status))
SMPI_CALL(int, Sendrecv_replace, (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status))
SMPI_CALL(int, Buffer_attach, (void *buffer, int size))
SMPI_CALL(int, Buffer_detach, (void *buffer_addr, int *size))
SMPI_CALL(int, Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status))
SMPI_CALL(int, Iprobe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status))
SMPI_CALL(int, Mprobe, (int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status))
SMPI_CALL(int, Improbe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status))
SMPI_CALL(int, Mrecv, (void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status))
SMPI_CALL(int, Imrecv, (void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request))
SMPI_CALL(int, Wait, (MPI_Request *request, MPI_Status *status))
SMPI_CALL(int, Waitall, (int count, MPI_Request array_of_requests[], MPI_Status *array_of_statuses))
SMPI_CALL(int, Waitany, (int count, MPI_Request array_of_requests[], int *indx, MPI_Status *status))
SMPI_CALL(int, Waitsome, (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status *array_of_statuses))
SMPI_CALL(int, Test, (MPI_Request *request, int *flag, MPI_Status *status))
SMPI_CALL(int, Testall, (int count, MPI_Request array_of_requests[], int *flag, MPI_Status *array_of_statuses))
SMPI_CALL(int, Testany, (int count, MPI_Request array_of_requests[], int *indx, int *flag, MPI_Status *status))
SMPI_CALL(int, Testsome, (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status *array_of_statuses))
SMPI_CALL(int, Request_free, (MPI_Request *request))
SMPI_CALL(int, Request_get_status, (MPI_Request request, int *flag, MPI_Status *status))
SMPI_CALL(int, Cancel, (MPI_Request *request))
SMPI_CALL(int, Test_cancelled, (const MPI_Status *status, int *flag))
SMPI_CALL(int, Send_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
SMPI_CALL(int, Ssend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
SMPI_CALL(int, Bsend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
SMPI_CALL(int, Rsend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
SMPI_CALL(int, Recv_init, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request))
SMPI_CALL(int, Start, (MPI_Request *request))
SMPI_CALL(int, Startall, (int count, MPI_Request array_of_requests[]))
SMPI_CALL(int, Grequest_start, (MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn, MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request))
SMPI_CALL(int, Grequest_complete, (MPI_Request request))
SMPI_CALL(int, Isendrecv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Request *request))
SMPI_CALL(int, Isendrecv_replace, (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Request *request))
/* MPI-4 large-count variants. */
SMPI_CALL(int, Send_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
SMPI_CALL(int, Isend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
SMPI_CALL(int, Irecv_c, (void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request))
SMPI_CALL(int, Recv_c, (void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status))
SMPI_CALL(int, Get_count_c, (const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count))
SMPI_CALL(int, Get_count, (const MPI_Status *status, MPI_Datatype datatype, int *count))
SMPI_CALL(int, Get_elements, (const MPI_Status *status, MPI_Datatype datatype, int *count))
SMPI_CALL(int, Get_elements_x, (const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count))
SMPI_CALL(int, Status_set_elements, (MPI_Status *status, MPI_Datatype datatype, int count))
SMPI_CALL(int, Status_set_elements_x, (MPI_Status *status, MPI_Datatype datatype, MPI_Count count))
SMPI_CALL(int, Status_set_cancelled, (MPI_Status *status, int flag))

/* Datatypes. */
SMPI_CALL(int, Type_size, (MPI_Datatype datatype, int *size))
SMPI_CALL(int, Type_get_extent, (MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent))
SMPI_CALL(int, Type_contiguous, (int count, MPI_Datatype oldtype, MPI_Datatype *newtype))
SMPI_CALL(int, Type_vector, (int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype))
SMPI_CALL(int, Type_create_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype))
SMPI_CALL(int, Type_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype))
SMPI_CALL(int, Type_indexed, (int count, const int array_of_blocklengths[], const int array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
SMPI_CALL(int, Type_create_hindexed, (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
SMPI_CALL(int, Type_hindexed, (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
SMPI_CALL(int, Type_create_indexed_block, (int count, int blocklength, const int array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
SMPI_CALL(int, Type_create_hindexed_block, (int count, int blocklength, const MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
SMPI_CALL(int, Type_create_struct, (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[], MPI_Datatype *newtype))
SMPI_CALL(int, Type_create_resized, (MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype))
SMPI_CALL(int, Type_dup, (MPI_Datatype oldtype, MPI_Datatype *newtype))
SMPI_CALL(int, Type_commit, (MPI_Datatype *datatype))
SMPI_CALL(int, Type_free, (MPI_Datatype *datatype))
SMPI_CALL(int, Type_get_true_extent, (MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent))
SMPI_CALL(int, Type_get_extent_x, (MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent))
SMPI_CALL(int, Type_get_true_extent_x, (MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent))
SMPI_CALL(int, Type_size_x, (MPI_Datatype datatype, MPI_Count *size))
SMPI_CALL(int, Type_get_envelope, (MPI_Datatype datatype, int *num_integers, int *num_addresses, int *num_datatypes, int *combiner))
SMPI_CALL(int, Type_set_name, (MPI_Datatype datatype, const char *type_name))
SMPI_CALL(int, Type_get_name, (MPI_Datatype datatype, char *type_name, int *resultlen))
SMPI_CALL(int, Get_address, (const void *location, MPI_Aint *address))
SMPI_CALL(int, Address, (const void *location, MPI_Aint *address))
SMPI_CALL(MPI_Aint, Aint_add, (MPI_Aint base, MPI_Aint disp))
SMPI_CALL(MPI_Aint, Aint_diff, (MPI_Aint addr1, MPI_Aint addr2))
SMPI_CALL(int, Type_extent, (MPI_Datatype datatype, MPI_Aint *extent))
SMPI_CALL(int, Type_struct, (int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[], MPI_Datatype array_of_types[], MPI_Datatype *newtype))
SMPI_CALL(int, Type_lb, (MPI_Datatype datatype, MPI_Aint *displacement))
SMPI_CALL(int, Type_ub, (MPI_Datatype datatype, MPI_Aint *displacement))
SMPI_CALL(int, Pack_external_size, (const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint *size))
SMPI_CALL(int, Pack_external, (const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, MPI_Aint outsize, MPI_Aint *position))
SMPI_CALL(int, Unpack_external, (const char datarep[], const void *inbuf, MPI_Aint insize, MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype))
SMPI_CALL(int, Type_create_darray, (int size, int rank, int ndims, const int array_of_gsizes[], const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype))
SMPI_CALL(int, Type_get_contents, (MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]))
SMPI_CALL(int, Type_match_size, (int typeclass, int size, MPI_Datatype *datatype))
SMPI_CALL(int, Type_create_f90_real, (int p, int r, MPI_Datatype *newtype))
SMPI_CALL(int, Type_create_f90_complex, (int p, int r, MPI_Datatype *newtype))
SMPI_CALL(int, Type_create_f90_integer, (int r, MPI_Datatype *newtype))
SMPI_CALL(int, Type_create_subarray, (int ndims, const int array_of_sizes[], const int array_of_subsizes[], const int array_of_starts[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype))
SMPI_CALL(int, Pack_size, (int incount, MPI_Datatype datatype, MPI_Comm comm, int *size))
SMPI_CALL(int, Pack, (const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize, int *position, MPI_Comm comm))
SMPI_CALL(int, Unpack, (const void *inbuf, int insize, int *position, void *outbuf, int outcount, MPI_Datatype datatype, MPI_Comm comm))

/* Collectives. */
SMPI_CALL(int, Barrier, (MPI_Comm comm))
SMPI_CALL(int, Bcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm))
SMPI_CALL(int, Gather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
SMPI_CALL(int, Gatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm))
SMPI_CALL(int, Scatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
SMPI_CALL(int, Scatterv, (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
SMPI_CALL(int, Allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
SMPI_CALL(int, Allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm))
SMPI_CALL(int, Alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
SMPI_CALL(int, Alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm))
SMPI_CALL(int, Alltoallw, (const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm))
SMPI_CALL(int, Reduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm))
SMPI_CALL(int, Allreduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
SMPI_CALL(int, Reduce_scatter, (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
SMPI_CALL(int, Reduce_scatter_block, (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
SMPI_CALL(int, Scan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
SMPI_CALL(int, Exscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
SMPI_CALL(int, Ibarrier, (MPI_Comm comm, MPI_Request *request))
SMPI_CALL(int, Ibcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request))
SMPI_CALL(int, Igather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
SMPI_CALL(int, Igatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
SMPI_CALL(int, Iscatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
SMPI_CALL(int, Iscatterv, (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
SMPI_CALL(int, Iallgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
SMPI_CALL(int, Iallgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
SMPI_CALL(int, Ialltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
SMPI_CALL(int, Ialltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
SMPI_CALL(int, Ireduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request))
SMPI_CALL(int, Iallreduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
SMPI_CALL(int, Ireduce_scatter, (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
SMPI_CALL(int, Ireduce_scatter_block, (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
SMPI_CALL(int, Iscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
SMPI_CALL(int, Iexscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
SMPI_CALL(int, Ialltoallw, (const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request))
/* Persistent collectives (MPI 4.0). */
SMPI_CALL(int, Barrier_init, (MPI_Comm comm, MPI_Info info, MPI_Request *request))
SMPI_CALL(int, Bcast_init, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request))
SMPI_CALL(int, Gather_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request))
SMPI_CALL(int, Gatherv_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request))
SMPI_CALL(int, Scatter_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request))
SMPI_CALL(int, Scatterv_init, (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request))
SMPI_CALL(int, Allgather_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
SMPI_CALL(int, Allgatherv_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
SMPI_CALL(int, Alltoall_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
SMPI_CALL(int, Alltoallv_init, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
SMPI_CALL(int, Alltoallw_init, (const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request *request))
SMPI_CALL(int, Reduce_init, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request))
SMPI_CALL(int, Allreduce_init, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request))
SMPI_CALL(int, Reduce_scatter_init, (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request))
SMPI_CALL(int, Reduce_scatter_block_init, (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request))
SMPI_CALL(int, Scan_init, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request))
SMPI_CALL(int, Exscan_init, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request))
SMPI_CALL(int, Neighbor_allgather_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
SMPI_CALL(int, Neighbor_allgatherv_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
SMPI_CALL(int, Neighbor_alltoall_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
SMPI_CALL(int, Neighbor_alltoallv_init, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
SMPI_CALL(int, Neighbor_alltoallw_init, (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request *request))
SMPI_CALL(int, Op_create, (MPI_User_function *user_fn, int commute, MPI_Op *op))
SMPI_CALL(int, Op_free, (MPI_Op *op))
SMPI_CALL(int, Op_commutative, (MPI_Op op, int *commute))
SMPI_CALL(int, Reduce_local, (const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op))

/* Virtual topologies. */
SMPI_CALL(int, Cart_create, (MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm *comm_cart))
SMPI_CALL(int, Cartdim_get, (MPI_Comm comm, int *ndims))
SMPI_CALL(int, Cart_get, (MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]))
SMPI_CALL(int, Cart_coords, (MPI_Comm comm, int rank, int maxdims, int coords[]))
SMPI_CALL(int, Cart_rank, (MPI_Comm comm, const int coords[], int *rank))
SMPI_CALL(int, Cart_shift, (MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest))
SMPI_CALL(int, Cart_sub, (MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm))
SMPI_CALL(int, Cart_map, (MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank))
SMPI_CALL(int, Topo_test, (MPI_Comm comm, int *status))
SMPI_CALL(int, Graph_create, (MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder, MPI_Comm *comm_graph))
SMPI_CALL(int, Graphdims_get, (MPI_Comm comm, int *nnodes, int *nedges))
SMPI_CALL(int, Graph_get, (MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]))
SMPI_CALL(int, Graph_neighbors_count, (MPI_Comm comm, int rank, int *nneighbors))
SMPI_CALL(int, Graph_neighbors, (MPI_Comm comm, int rank, int maxneighbors, int neighbors[]))
SMPI_CALL(int, Graph_map, (MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank))
#define MPI_UNWEIGHTED ((int *)2)
#define MPI_WEIGHTS_EMPTY ((int *)3)
SMPI_CALL(int, Dist_graph_create_adjacent, (MPI_Comm comm_old, int indegree, const int sources[], const int *sourceweights, int outdegree, const int destinations[], const int *destweights, MPI_Info info, int reorder, MPI_Comm *comm_dist_graph))
SMPI_CALL(int, Dist_graph_create, (MPI_Comm comm_old, int n, const int sources[], const int degrees[], const int destinations[], const int *weights, MPI_Info info, int reorder, MPI_Comm *comm_dist_graph))
SMPI_CALL(int, Dist_graph_neighbors_count, (MPI_Comm comm, int *indegree, int *outdegree, int *weighted))
SMPI_CALL(int, Neighbor_allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
SMPI_CALL(int, Ineighbor_allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
SMPI_CALL(int, Neighbor_allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm))
SMPI_CALL(int, Ineighbor_allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
SMPI_CALL(int, Neighbor_alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
SMPI_CALL(int, Ineighbor_alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
SMPI_CALL(int, Neighbor_alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm))
SMPI_CALL(int, Ineighbor_alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
SMPI_CALL(int, Neighbor_alltoallw, (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm))
SMPI_CALL(int, Ineighbor_alltoallw, (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request))
SMPI_CALL(int, Dist_graph_neighbors, (MPI_Comm comm, int maxindegree, int sources[], int *sourceweights, int maxoutdegree, int destinations[], int *destweights))

/* Info objects. */
SMPI_CALL(int, Info_create, (MPI_Info *info))
SMPI_CALL(int, Info_set, (MPI_Info info, const char *key, const char *value))
SMPI_CALL(int, Info_get, (MPI_Info info, const char *key, int valuelen, char *value, int *flag))
SMPI_CALL(int, Info_get_valuelen, (MPI_Info info, const char *key, int *valuelen, int *flag))
SMPI_CALL(int, Info_delete, (MPI_Info info, const char *key))
SMPI_CALL(int, Info_get_nkeys, (MPI_Info info, int *nkeys))
SMPI_CALL(int, Info_get_nthkey, (MPI_Info info, int n, char *key))
SMPI_CALL(int, Info_dup, (MPI_Info info, MPI_Info *newinfo))
SMPI_CALL(int, Info_free, (MPI_Info *info))
SMPI_CALL(int, Info_get_string, (MPI_Info info, const char *key, int *buflen, char *value, int *flag))
SMPI_CALL(int, Info_create_env, (int argc, char *argv[], MPI_Info *info))

/* Errors. */
SMPI_CALL(int, Error_string, (int errorcode, char *string, int *resultlen))
SMPI_CALL(int, Error_class, (int errorcode, int *errorclass))
SMPI_CALL(int, Add_error_class, (int *errorclass))
SMPI_CALL(int, Add_error_code, (int errorclass, int *errorcode))
SMPI_CALL(int, Add_error_string, (int errorcode, const char *string))
SMPI_CALL(int, Comm_create_errhandler, (MPI_Comm_errhandler_function *comm_errhandler_fn, MPI_Errhandler *errhandler))
SMPI_CALL(int, Comm_call_errhandler, (MPI_Comm comm, int errorcode))
SMPI_CALL(int, Errhandler_create, (MPI_Comm_errhandler_function *function, MPI_Errhandler *errhandler))
SMPI_CALL(int, Errhandler_set, (MPI_Comm comm, MPI_Errhandler errhandler))
SMPI_CALL(int, Errhandler_get, (MPI_Comm comm, MPI_Errhandler *errhandler))
SMPI_CALL(int, Comm_set_errhandler, (MPI_Comm comm, MPI_Errhandler errhandler))
SMPI_CALL(int, Comm_get_errhandler, (MPI_Comm comm, MPI_Errhandler *errhandler))
/* File error handlers (MPI_FILE_NULL's is the default of files opened
   next; it starts as MPI_ERRORS_RETURN, as MPI says). */
typedef void(MPI_File_errhandler_function)(MPI_File *file, int *error_code, ...);
typedef MPI_File_errhandler_function MPI_File_errhandler_fn;
SMPI_CALL(int, File_create_errhandler, (MPI_File_errhandler_function *file_errhandler_fn, MPI_Errhandler *errhandler))
SMPI_CALL(int, File_set_errhandler, (MPI_File file, MPI_Errhandler errhandler))
SMPI_CALL(int, File_get_errhandler, (MPI_File file, MPI_Errhandler *errhandler))
SMPI_CALL(int, File_call_errhandler, (MPI_File fh, int errorcode))
SMPI_CALL(int, Errhandler_free, (MPI_Errhandler *errhandler))

/* One-sided communication. */
#define MPI_LOCK_EXCLUSIVE 234
#define MPI_LOCK_SHARED 235
#define MPI_MODE_NOCHECK 1024
#define MPI_MODE_NOSTORE 2048
#define MPI_MODE_NOPUT 4096
#define MPI_MODE_NOPRECEDE 8192
#define MPI_MODE_NOSUCCEED 16384
#define MPI_WIN_BASE 8
#define MPI_WIN_SIZE 9
#define MPI_WIN_DISP_UNIT 10
#define MPI_WIN_CREATE_FLAVOR 11
#define MPI_WIN_MODEL 12
#define MPI_WIN_FLAVOR_CREATE 1
#define MPI_WIN_FLAVOR_ALLOCATE 2
#define MPI_WIN_FLAVOR_DYNAMIC 3
#define MPI_WIN_FLAVOR_SHARED 4
#define MPI_WIN_SEPARATE 1
#define MPI_WIN_UNIFIED 2
typedef void(MPI_Win_errhandler_function)(MPI_Win *win, int *error_code, ...);
typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn;
typedef int(MPI_Win_copy_attr_function)(MPI_Win oldwin, int win_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int(MPI_Win_delete_attr_function)(MPI_Win win, int win_keyval, void *attribute_val,
                                          void *extra_state);
#define MPI_WIN_NULL_COPY_FN ((MPI_Win_copy_attr_function *)0)
#define MPI_WIN_NULL_DELETE_FN ((MPI_Win_delete_attr_function *)0)
#define MPI_WIN_DUP_FN ((MPI_Win_copy_attr_function *)1)
SMPI_CALL(int, Alloc_mem, (MPI_Aint size, MPI_Info info, void *baseptr))
SMPI_CALL(int, Free_mem, (void *base))
SMPI_CALL(int, Win_create, (void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win))
SMPI_CALL(int, Win_allocate, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win))
SMPI_CALL(int, Win_allocate_shared, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win))
SMPI_CALL(int, Win_create_dynamic, (MPI_Info info, MPI_Comm comm, MPI_Win *win))
SMPI_CALL(int, Win_shared_query, (MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr))
SMPI_CALL(int, Win_attach, (MPI_Win win, void *base, MPI_Aint size))
SMPI_CALL(int, Win_detach, (MPI_Win win, const void *base))
SMPI_CALL(int, Win_free, (MPI_Win *win))
SMPI_CALL(int, Win_get_group, (MPI_Win win, MPI_Group *group))
SMPI_CALL(int, Win_set_info, (MPI_Win win, MPI_Info info))
SMPI_CALL(int, Win_get_info, (MPI_Win win, MPI_Info *info_used))
SMPI_CALL(int, Win_set_name, (MPI_Win win, const char *win_name))
SMPI_CALL(int, Win_get_name, (MPI_Win win, char *win_name, int *resultlen))
SMPI_CALL(int, Win_fence, (int assert, MPI_Win win))
SMPI_CALL(int, Win_lock, (int lock_type, int rank, int assert, MPI_Win win))
SMPI_CALL(int, Win_unlock, (int rank, MPI_Win win))
SMPI_CALL(int, Win_lock_all, (int assert, MPI_Win win))
SMPI_CALL(int, Win_unlock_all, (MPI_Win win))
SMPI_CALL(int, Win_flush, (int rank, MPI_Win win))
SMPI_CALL(int, Win_flush_local, (int rank, MPI_Win win))
SMPI_CALL(int, Win_flush_all, (MPI_Win win))
SMPI_CALL(int, Win_flush_local_all, (MPI_Win win))
SMPI_CALL(int, Win_sync, (MPI_Win win))
SMPI_CALL(int, Win_post, (MPI_Group group, int assert, MPI_Win win))
SMPI_CALL(int, Win_start, (MPI_Group group, int assert, MPI_Win win))
SMPI_CALL(int, Win_complete, (MPI_Win win))
SMPI_CALL(int, Win_wait, (MPI_Win win))
SMPI_CALL(int, Win_test, (MPI_Win win, int *flag))
SMPI_CALL(int, Put, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win))
SMPI_CALL(int, Rput, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request))
SMPI_CALL(int, Get, (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win))
SMPI_CALL(int, Rget, (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request))
SMPI_CALL(int, Accumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win))
SMPI_CALL(int, Raccumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request))
SMPI_CALL(int, Get_accumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win))
SMPI_CALL(int, Rget_accumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request))
SMPI_CALL(int, Fetch_and_op, (const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win))
SMPI_CALL(int, Compare_and_swap, (const void *origin_addr, const void *compare_addr, void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win))
SMPI_CALL(int, Win_create_keyval, (MPI_Win_copy_attr_function *win_copy_attr_fn, MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval, void *extra_state))
SMPI_CALL(int, Win_free_keyval, (int *win_keyval))
SMPI_CALL(int, Win_set_attr, (MPI_Win win, int win_keyval, void *attribute_val))
SMPI_CALL(int, Win_get_attr, (MPI_Win win, int win_keyval, void *attribute_val, int *flag))
SMPI_CALL(int, Win_delete_attr, (MPI_Win win, int win_keyval))
SMPI_CALL(int, Win_create_errhandler, (MPI_Win_errhandler_function *win_errhandler_fn, MPI_Errhandler *errhandler))
SMPI_CALL(int, Win_set_errhandler, (MPI_Win win, MPI_Errhandler errhandler))
SMPI_CALL(int, Win_get_errhandler, (MPI_Win win, MPI_Errhandler *errhandler))
SMPI_CALL(int, Win_call_errhandler, (MPI_Win win, int errorcode))
SMPI_CALL(MPI_Fint, Win_c2f, (MPI_Win win))
SMPI_CALL(MPI_Win, Win_f2c, (MPI_Fint win))

/* Handle conversions (handles are integers: the identity). */
SMPI_CALL(MPI_Fint, Comm_c2f, (MPI_Comm comm))
SMPI_CALL(MPI_Comm, Comm_f2c, (MPI_Fint comm))
SMPI_CALL(MPI_Fint, Group_c2f, (MPI_Group group))
SMPI_CALL(MPI_Group, Group_f2c, (MPI_Fint group))
SMPI_CALL(MPI_Fint, Type_c2f, (MPI_Datatype datatype))
SMPI_CALL(MPI_Datatype, Type_f2c, (MPI_Fint datatype))
SMPI_CALL(MPI_Fint, Request_c2f, (MPI_Request request))
SMPI_CALL(MPI_Request, Request_f2c, (MPI_Fint request))
SMPI_CALL(MPI_Fint, Op_c2f, (MPI_Op op))
SMPI_CALL(MPI_Op, Op_f2c, (MPI_Fint op))
SMPI_CALL(MPI_Fint, Errhandler_c2f, (MPI_Errhandler errhandler))
SMPI_CALL(MPI_Errhandler, Errhandler_f2c, (MPI_Fint errhandler))
SMPI_CALL(MPI_Fint, Message_c2f, (MPI_Message message))
SMPI_CALL(MPI_Message, Message_f2c, (MPI_Fint message))
SMPI_CALL(MPI_Fint, Info_c2f, (MPI_Info info))
SMPI_CALL(MPI_Info, Info_f2c, (MPI_Fint info))

/* MPI-IO: real files, simulated disks. */
#define MPI_MODE_CREATE 1
#define MPI_MODE_RDONLY 2
#define MPI_MODE_WRONLY 4
#define MPI_MODE_RDWR 8
#define MPI_MODE_DELETE_ON_CLOSE 16
#define MPI_MODE_UNIQUE_OPEN 32
#define MPI_MODE_EXCL 64
#define MPI_MODE_APPEND 128
#define MPI_MODE_SEQUENTIAL 256
#define MPI_SEEK_SET 600
#define MPI_SEEK_CUR 602
#define MPI_SEEK_END 604
#define MPI_DISPLACEMENT_CURRENT (-54278278)
#define MPI_MAX_DATAREP_STRING 128
SMPI_CALL(int, File_open, (MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh))
SMPI_CALL(int, File_close, (MPI_File *fh))
SMPI_CALL(int, File_delete, (const char *filename, MPI_Info info))
SMPI_CALL(int, File_set_size, (MPI_File fh, MPI_Offset size))
SMPI_CALL(int, File_preallocate, (MPI_File fh, MPI_Offset size))
SMPI_CALL(int, File_get_size, (MPI_File fh, MPI_Offset *size))
SMPI_CALL(int, File_get_group, (MPI_File fh, MPI_Group *group))
SMPI_CALL(int, File_get_amode, (MPI_File fh, int *amode))
SMPI_CALL(int, File_set_info, (MPI_File fh, MPI_Info info))
SMPI_CALL(int, File_get_info, (MPI_File fh, MPI_Info *info_used))
SMPI_CALL(int, File_set_view, (MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char *datarep, MPI_Info info))
SMPI_CALL(int, File_get_view, (MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype, char *datarep))
SMPI_CALL(int, File_get_type_extent, (MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent))
SMPI_CALL(int, File_set_atomicity, (MPI_File fh, int flag))
SMPI_CALL(int, File_get_atomicity, (MPI_File fh, int *flag))
SMPI_CALL(int, File_sync, (MPI_File fh))
SMPI_CALL(int, File_seek, (MPI_File fh, MPI_Offset offset, int whence))
SMPI_CALL(int, File_get_position, (MPI_File fh, MPI_Offset *offset))
SMPI_CALL(int, File_seek_shared, (MPI_File fh, MPI_Offset offset, int whence))
SMPI_CALL(int, File_get_position_shared, (MPI_File fh, MPI_Offset *offset))
SMPI_CALL(int, File_get_byte_offset, (MPI_File fh, MPI_Offset offset, MPI_Offset *disp))
SMPI_CALL(int, File_read_at, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
SMPI_CALL(int, File_read_at_all, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
SMPI_CALL(int, File_write_at, (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
SMPI_CALL(int, File_write_at_all, (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
SMPI_CALL(int, File_iread_at, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
SMPI_CALL(int, File_iread_at_all, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
SMPI_CALL(int, File_iwrite_at, (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
SMPI_CALL(int, File_iwrite_at_all, (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
SMPI_CALL(int, File_read, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
SMPI_CALL(int, File_read_all, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
SMPI_CALL(int, File_write, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
SMPI_CALL(int, File_write_all, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
SMPI_CALL(int, File_iread, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
SMPI_CALL(int, File_iread_all, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
SMPI_CALL(int, File_iwrite, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
SMPI_CALL(int, File_iwrite_all, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
SMPI_CALL(int, File_read_shared, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
SMPI_CALL(int, File_write_shared, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
SMPI_CALL(int, File_iread_shared, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
SMPI_CALL(int, File_iwrite_shared, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
SMPI_CALL(int, File_read_ordered, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
SMPI_CALL(int, File_write_ordered, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
SMPI_CALL(int, File_read_at_all_begin, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype))
SMPI_CALL(int, File_read_at_all_end, (MPI_File fh, void *buf, MPI_Status *status))
SMPI_CALL(int, File_write_at_all_begin, (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype))
SMPI_CALL(int, File_write_at_all_end, (MPI_File fh, const void *buf, MPI_Status *status))
SMPI_CALL(int, File_read_all_begin, (MPI_File fh, void *buf, int count, MPI_Datatype datatype))
SMPI_CALL(int, File_read_all_end, (MPI_File fh, void *buf, MPI_Status *status))
SMPI_CALL(int, File_write_all_begin, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype))
SMPI_CALL(int, File_write_all_end, (MPI_File fh, const void *buf, MPI_Status *status))
SMPI_CALL(int, File_read_ordered_begin, (MPI_File fh, void *buf, int count, MPI_Datatype datatype))
SMPI_CALL(int, File_read_ordered_end, (MPI_File fh, void *buf, MPI_Status *status))
SMPI_CALL(int, File_write_ordered_begin, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype))
SMPI_CALL(int, File_write_ordered_end, (MPI_File fh, const void *buf, MPI_Status *status))
SMPI_CALL(MPI_Fint, File_c2f, (MPI_File fh))
SMPI_CALL(MPI_File, File_f2c, (MPI_Fint fh))
/* ROMIO's names of MPI-1 days, which MPI-IO programs still use. */
typedef MPI_Request MPIO_Request;
#define MPIO_Wait MPI_Wait
#define MPIO_Test MPI_Test
#define MPIO_REQUEST_NULL MPI_REQUEST_NULL

#ifdef __cplusplus
}
#endif

/* What SimGrid's mpi.h brings along, which programs written for it rely on:
 * the SMPI extensions (SMPI_SAMPLE_*, SMPI_SHARED_*, smpi_execute*, ...),
 * the toolbox's logging, assertions and allocation helpers (XBT_INFO,
 * xbt_assert, xbt_new0, ...), the model checker's hooks (inactive), and
 * the system headers its helpers include (<getopt.h> for getopt_long and
 * struct option, <stdio.h>, <stdlib.h>, <string.h>, <unistd.h>, the time
 * headers; <functional> and <vector> in C++). */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#ifdef __cplusplus
#include <functional>
#include <vector>
#endif
#include <simgrid/modelchecker.h>
#include <smpi/smpi.h>
#include <xbt/asserts.h>
#include <xbt/log.h>
#include <xbt/sysdep.h>

/* smpicc -trace-call-location: every MPI call notes its place first. */
#ifdef TRACE_CALL_LOCATION
#include <smpi/smpi_extended_traces.h>
#endif

#endif /* SMPI_MPI_H */
