/* User error handlers and error classes, self-checking: a handler set on
 * MPI_COMM_WORLD sees the error of a bad call; MPI_Comm_call_errhandler
 * invokes it; user classes, codes and strings. Prints " No Errors". */
#include <mpi.h>
#include "check.h"
#include <string.h>

static int calls = 0, last_code = 0;

static void handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    calls++;
    last_code = *code;
}

int main(int argc, char **argv)
{
    MPI_Errhandler eh, got;
    int rc, cls, myclass, mycode, len, total, *lastused, flag, v = 0;
    char text[MPI_MAX_ERROR_STRING];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Comm_create_errhandler(handler, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got);
    CHECK(got == eh, "get_errhandler returned another handler");
    rc = MPI_Send(&v, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    CHECK(calls == 1 && cls == MPI_ERR_RANK && last_code == rc, "handler calls %d code %d", calls, last_code);

    MPI_Add_error_class(&myclass);
    MPI_Add_error_code(myclass, &mycode);
    MPI_Add_error_string(mycode, "the widget broke");
    CHECK(myclass > MPI_ERR_LASTCODE || myclass > 55, "new class %d", myclass);
    MPI_Error_class(mycode, &cls);
    CHECK(cls == myclass, "class of the new code %d", cls);
    MPI_Error_string(mycode, text, &len);
    CHECK(strcmp(text, "the widget broke") == 0 && len == 16, "string '%s'", text);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastused, &flag);
    CHECK(flag && *lastused == mycode, "MPI_LASTUSEDCODE %d", flag ? *lastused : -1);

    MPI_Comm_call_errhandler(MPI_COMM_WORLD, mycode);
    CHECK(calls == 2 && last_code == mycode, "call_errhandler: calls %d code %d", calls, last_code);

    /* Files: MPI_FILE_NULL's handler is MPI_ERRORS_RETURN until set; it also
     * judges calls on invalid file handles. */
    MPI_File_get_errhandler(MPI_FILE_NULL, &got);
    CHECK(got == MPI_ERRORS_RETURN, "default file handler %d", got);
    rc = MPI_File_call_errhandler(MPI_FILE_NULL, mycode);
    CHECK(rc == mycode && calls == 2, "file call_errhandler returned %d", rc);
    MPI_Errhandler feh;
    MPI_File_create_errhandler((MPI_File_errhandler_function *)handler, &feh);
    MPI_File_set_errhandler(MPI_FILE_NULL, feh);
    MPI_File_call_errhandler(MPI_FILE_NULL, MPI_ERR_IO);
    CHECK(calls == 3 && last_code == MPI_ERR_IO, "file handler: calls %d code %d", calls,
          last_code);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_File_set_errhandler(42, MPI_ERRORS_RETURN);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_FILE, "a file other than MPI_FILE_NULL: class %d", cls);
    MPI_Errhandler_free(&eh);
    MPI_Errhandler_free(&feh);
    MPI_Reduce(&errors, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf(total == 0 ? " No Errors\n" : " Found %d errors\n", total);
    MPI_Finalize();
    return total != 0 && rank == 0;
}
