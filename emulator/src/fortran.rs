//! The Fortran face of the MPI library, generated from our `mpi.h`: the
//! include file `mpif.h` (every integer constant of the C header as a
//! `PARAMETER`, the status layout, the kinds, and the sentinels as
//! `COMMON` blocks), the source of the `mpi` module (`mpif.h` in a
//! module), and the C source of the Fortran bindings (`mpi_send_` and
//! friends) that `smpif90` compiles once and links into every Fortran
//! program, next to the MPI shim.
//!
//! The bindings are generated from the `SMPI_CALL` declarations, so every
//! C function has its Fortran twin; those whose Fortran form differs
//! (callbacks with Fortran signatures: keyvals and generalized requests,
//! bridged by C trampolines; 1-based request indices; MPI-1's INTEGER
//! addresses) are written by hand, and those with no plain Fortran form
//! (`char **`, varargs, MPI 4.0 additions) are absent and fail at link
//! time like any missing function. Fortran passes every
//! argument by reference: scalars (integers, handles, which are the C
//! handles: `MPI_Comm_f2c` is the identity) are read through their
//! pointer; arrays, outputs and buffers pass through, the addresses of
//! `MPI_BOTTOM`, `MPI_IN_PLACE`, `MPI_STATUS(ES)_IGNORE`,
//! `MPI_ERRCODES_IGNORE`, `MPI_UNWEIGHTED` and `MPI_WEIGHTS_EMPTY` becoming
//! the C sentinels; `CHARACTER` arguments come with their lengths after
//! the others (gfortran's convention), inputs lose their trailing blanks
//! and outputs are padded with blanks; the error code is the last
//! argument. A status is the C `MPI_Status`, five `INTEGER`s. LOGICAL is
//! gfortran's, 1 for true, as C writes it. Default `INTEGER` must be 4
//! bytes (no `-fdefault-integer-8`).

use std::fmt::Write as _;

/// Status layout, as `MPI_Status` in mpi.h orders its five ints.
const STATUS_SIZE: usize = 5;
const STATUS_FIELDS: [(&str, usize); 3] = [("MPI_SOURCE", 3), ("MPI_TAG", 4), ("MPI_ERROR", 5)];

/// Sentinels: (Fortran name, C symbol of its COMMON block, its size in
/// ints, the C value an argument at that address becomes, the C type of
/// the arguments it applies to).
const SENTINELS: &[(&str, &str, usize, &str, Sentinel)] = &[
    (
        "MPI_BOTTOM",
        "smpi_f_bottom_",
        1,
        "MPI_BOTTOM",
        Sentinel::Buffer,
    ),
    (
        "MPI_IN_PLACE",
        "smpi_f_in_place_",
        1,
        "MPI_IN_PLACE",
        Sentinel::Buffer,
    ),
    (
        "MPI_STATUS_IGNORE",
        "smpi_f_status_ignore_",
        STATUS_SIZE,
        "MPI_STATUS_IGNORE",
        Sentinel::Status,
    ),
    (
        "MPI_STATUSES_IGNORE",
        "smpi_f_statuses_ignore_",
        STATUS_SIZE,
        "MPI_STATUSES_IGNORE",
        Sentinel::Status,
    ),
    (
        "MPI_ERRCODES_IGNORE",
        "smpi_f_errcodes_ignore_",
        1,
        "MPI_ERRCODES_IGNORE",
        Sentinel::Ints,
    ),
    (
        "MPI_UNWEIGHTED",
        "smpi_f_unweighted_",
        1,
        "MPI_UNWEIGHTED",
        Sentinel::Ints,
    ),
    (
        "MPI_WEIGHTS_EMPTY",
        "smpi_f_weights_empty_",
        1,
        "MPI_WEIGHTS_EMPTY",
        Sentinel::Ints,
    ),
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Sentinel {
    Buffer,
    Status,
    Ints,
}

/// C types that are `int` (handles included).
const INT_TYPES: &[&str] = &[
    "int",
    "MPI_Comm",
    "MPI_Datatype",
    "MPI_Op",
    "MPI_Request",
    "MPI_Group",
    "MPI_Errhandler",
    "MPI_Info",
    "MPI_Win",
    "MPI_Message",
    "MPI_File",
    "MPI_Fint",
];

/// C types of Fortran `INTEGER(KIND=...)` scalars of 8 bytes.
const WIDE_TYPES: &[&str] = &["MPI_Aint", "MPI_Offset", "MPI_Count"];

/// Functions written by hand below ([`HAND_WRITTEN`]) or without a Fortran
/// form: callbacks whose Fortran signature differs from C's (keyvals,
/// generalized requests, user data representations), C-only conversions,
/// MPI 4 additions, the MPI-1 functions whose Fortran addresses are
/// default INTEGERs (written by hand).
const NOT_GENERATED: &[&str] = &[
    "Init",
    "Init_thread",
    "Pcontrol",
    "Comm_get_attr",
    "Attr_get",
    "Comm_set_attr",
    "Attr_put",
    "Type_get_attr",
    "Type_set_attr",
    "Win_get_attr",
    "Win_set_attr",
    "Comm_create_keyval",
    "Type_create_keyval",
    "Win_create_keyval",
    "Keyval_create",
    "Grequest_start",
    "Info_get_string",
    "Info_create_env",
    "Address",
    "Type_extent",
    "Type_lb",
    "Type_ub",
    "Type_hvector",
    "Type_hindexed",
    "Type_struct",
    "Waitany",
    "Testany",
    "Waitsome",
    "Testsome",
];

/// The predefined attribute callbacks, procedures in Fortran (defined in
/// [`HAND_WRITTEN`]).
const PREDEFINED_CALLBACKS: &[&str] = &[
    "MPI_COMM_NULL_COPY_FN",
    "MPI_COMM_DUP_FN",
    "MPI_COMM_NULL_DELETE_FN",
    "MPI_TYPE_NULL_COPY_FN",
    "MPI_TYPE_DUP_FN",
    "MPI_TYPE_NULL_DELETE_FN",
    "MPI_WIN_NULL_COPY_FN",
    "MPI_WIN_DUP_FN",
    "MPI_WIN_NULL_DELETE_FN",
    "MPI_NULL_COPY_FN",
    "MPI_DUP_FN",
    "MPI_NULL_DELETE_FN",
];

/// The bindings that need more than the generic translation.
const HAND_WRITTEN: &str = r#"
void mpi_init_(int *ierr) { *ierr = MPI_Init(0, 0); }
void mpi_init_thread_(int *required, int *provided, int *ierr)
{
    *ierr = MPI_Init_thread(0, 0, *required, provided);
}
void mpi_pcontrol_(int *level, int *ierr) { *ierr = MPI_Pcontrol(*level); }

/* Attributes. A value set from Fortran is kept as the pointer-sized C
 * value itself: INTEGER(KIND=MPI_ADDRESS_KIND), or INTEGER for the MPI-1
 * calls (MPI_ATTR_PUT, MPI_KEYVAL_CREATE). The predefined attributes are
 * kept by C as pointers to ints (to an MPI_Aint for MPI_WIN_SIZE; the
 * window's base is the value itself). */
static int smpi_f_int_attribute(int keyval)
{
    return keyval == MPI_TAG_UB || keyval == MPI_HOST || keyval == MPI_IO
        || keyval == MPI_WTIME_IS_GLOBAL || keyval == MPI_UNIVERSE_SIZE
        || keyval == MPI_APPNUM || keyval == MPI_LASTUSEDCODE;
}
static MPI_Aint smpi_f_attribute(void *p, int keyval, int win)
{
    if (win && keyval == MPI_WIN_SIZE)
        return *(MPI_Aint *)p;
    if (win && (keyval == MPI_WIN_DISP_UNIT || keyval == MPI_WIN_CREATE_FLAVOR
                || keyval == MPI_WIN_MODEL))
        return *(int *)p;
    if (!win && smpi_f_int_attribute(keyval))
        return *(int *)p;
    return (MPI_Aint)p;
}
void mpi_comm_get_attr_(int *comm, int *keyval, MPI_Aint *value, int *flag, int *ierr)
{
    void *p = 0;
    *ierr = MPI_Comm_get_attr(*comm, *keyval, &p, flag);
    if (*ierr == MPI_SUCCESS && *flag)
        *value = smpi_f_attribute(p, *keyval, 0);
}
void mpi_attr_get_(int *comm, int *keyval, int *value, int *flag, int *ierr)
{
    void *p = 0;
    *ierr = MPI_Attr_get(*comm, *keyval, &p, flag);
    if (*ierr == MPI_SUCCESS && *flag)
        *value = (int)smpi_f_attribute(p, *keyval, 0);
}
void mpi_type_get_attr_(int *type, int *keyval, MPI_Aint *value, int *flag, int *ierr)
{
    void *p = 0;
    *ierr = MPI_Type_get_attr(*type, *keyval, &p, flag);
    if (*ierr == MPI_SUCCESS && *flag)
        *value = (MPI_Aint)p;
}
void mpi_win_get_attr_(int *win, int *keyval, MPI_Aint *value, int *flag, int *ierr)
{
    void *p = 0;
    *ierr = MPI_Win_get_attr(*win, *keyval, &p, flag);
    if (*ierr == MPI_SUCCESS && *flag)
        *value = smpi_f_attribute(p, *keyval, 1);
}
void mpi_comm_set_attr_(int *comm, int *keyval, MPI_Aint *value, int *ierr)
{
    *ierr = MPI_Comm_set_attr(*comm, *keyval, (void *)*value);
}
void mpi_attr_put_(int *comm, int *keyval, int *value, int *ierr)
{
    *ierr = MPI_Attr_put(*comm, *keyval, (void *)(MPI_Aint)*value);
}
void mpi_type_set_attr_(int *type, int *keyval, MPI_Aint *value, int *ierr)
{
    *ierr = MPI_Type_set_attr(*type, *keyval, (void *)*value);
}
void mpi_win_set_attr_(int *win, int *keyval, MPI_Aint *value, int *ierr)
{
    *ierr = MPI_Win_set_attr(*win, *keyval, (void *)*value);
}

/* Keyvals: the Fortran callbacks take everything by reference, so C gets
 * trampolines, and the keyval's extra state is a record of the Fortran
 * callbacks and extra state (from a pool: keyvals are few). */
typedef void (*smpi_f_copy_fn)(int *, int *, void *, void *, void *, int *, int *);
typedef void (*smpi_f_delete_fn)(int *, int *, void *, void *, int *);
struct smpi_f_keyval {
    smpi_f_copy_fn copy;
    smpi_f_delete_fn del;
    MPI_Aint extra;
    int mpi1;
};
/* Small: a rank's globals are copied at each switch under swap
 * privatization. */
static struct smpi_f_keyval smpi_f_keyvals[32];
static int smpi_f_keyvals_used;
static struct smpi_f_keyval *smpi_f_new_keyval(void *copy, void *del, MPI_Aint extra, int mpi1)
{
    struct smpi_f_keyval *k = smpi_f_keyvals_used < 32 ? &smpi_f_keyvals[smpi_f_keyvals_used++]
                                                       : malloc(sizeof *k);
    k->copy = (smpi_f_copy_fn)copy;
    k->del = (smpi_f_delete_fn)del;
    k->extra = extra;
    k->mpi1 = mpi1;
    return k;
}
static int smpi_f_copy(int old, int keyval, void *extra, void *in, void *out, int *flag)
{
    struct smpi_f_keyval *k = extra;
    int ierr = MPI_SUCCESS, fflag = 0;
    if (k->mpi1) {
        int e = (int)k->extra, vin = (int)(MPI_Aint)in, vout = 0;
        k->copy(&old, &keyval, &e, &vin, &vout, &fflag, &ierr);
        *(void **)out = (void *)(MPI_Aint)vout;
    } else {
        MPI_Aint e = k->extra, vin = (MPI_Aint)in, vout = 0;
        k->copy(&old, &keyval, &e, &vin, &vout, &fflag, &ierr);
        *(void **)out = (void *)vout;
    }
    *flag = fflag != 0;
    return ierr;
}
static int smpi_f_delete(int obj, int keyval, void *value, void *extra)
{
    struct smpi_f_keyval *k = extra;
    int ierr = MPI_SUCCESS;
    if (k->mpi1) {
        int v = (int)(MPI_Aint)value, e = (int)k->extra;
        k->del(&obj, &keyval, &v, &e, &ierr);
    } else {
        MPI_Aint v = (MPI_Aint)value, e = k->extra;
        k->del(&obj, &keyval, &v, &e, &ierr);
    }
    return ierr;
}
void mpi_comm_create_keyval_(void *copy, void *del, int *keyval, MPI_Aint *extra, int *ierr)
{
    *ierr = MPI_Comm_create_keyval((MPI_Comm_copy_attr_function *)smpi_f_copy,
                                   (MPI_Comm_delete_attr_function *)smpi_f_delete, keyval,
                                   smpi_f_new_keyval(copy, del, *extra, 0));
}
void mpi_type_create_keyval_(void *copy, void *del, int *keyval, MPI_Aint *extra, int *ierr)
{
    *ierr = MPI_Type_create_keyval((MPI_Type_copy_attr_function *)smpi_f_copy,
                                   (MPI_Type_delete_attr_function *)smpi_f_delete, keyval,
                                   smpi_f_new_keyval(copy, del, *extra, 0));
}
void mpi_win_create_keyval_(void *copy, void *del, int *keyval, MPI_Aint *extra, int *ierr)
{
    *ierr = MPI_Win_create_keyval((MPI_Win_copy_attr_function *)smpi_f_copy,
                                  (MPI_Win_delete_attr_function *)smpi_f_delete, keyval,
                                  smpi_f_new_keyval(copy, del, *extra, 0));
}
void mpi_keyval_create_(void *copy, void *del, int *keyval, int *extra, int *ierr)
{
    *ierr = MPI_Keyval_create((MPI_Copy_function *)smpi_f_copy,
                              (MPI_Delete_function *)smpi_f_delete, keyval,
                              smpi_f_new_keyval(copy, del, *extra, 1));
}

/* Generalized requests: the Fortran callbacks behind C trampolines, with
 * the address of the program's extra-state variable (the callbacks update
 * it in place, as MPICH's bindings let them), in a record that the free
 * callback releases. */
typedef void (*smpi_f_query_fn)(MPI_Aint *, MPI_Status *, int *);
typedef void (*smpi_f_free_fn)(MPI_Aint *, int *);
typedef void (*smpi_f_cancel_fn)(MPI_Aint *, int *, int *);
struct smpi_f_grequest {
    smpi_f_query_fn query;
    smpi_f_free_fn free;
    smpi_f_cancel_fn cancel;
    MPI_Aint *extra;
};
static int smpi_f_grequest_query(void *record, MPI_Status *status)
{
    struct smpi_f_grequest *g = record;
    int ierr = MPI_SUCCESS;
    g->query(g->extra, status, &ierr);
    return ierr;
}
static int smpi_f_grequest_free(void *record)
{
    struct smpi_f_grequest *g = record;
    int ierr = MPI_SUCCESS;
    g->free(g->extra, &ierr);
    free(g);
    return ierr;
}
static int smpi_f_grequest_cancel(void *record, int complete)
{
    struct smpi_f_grequest *g = record;
    int ierr = MPI_SUCCESS, fcomplete = complete != 0;
    g->cancel(g->extra, &fcomplete, &ierr);
    return ierr;
}
void mpi_grequest_start_(void *query, void *free_fn, void *cancel, MPI_Aint *extra,
                         MPI_Request *request, int *ierr)
{
    struct smpi_f_grequest *g = malloc(sizeof *g);
    g->query = (smpi_f_query_fn)query;
    g->free = (smpi_f_free_fn)free_fn;
    g->cancel = (smpi_f_cancel_fn)cancel;
    g->extra = extra;
    *ierr = MPI_Grequest_start(smpi_f_grequest_query, smpi_f_grequest_free, smpi_f_grequest_cancel,
                               g, request);
    if (*ierr != MPI_SUCCESS)
        free(g);
}

/* The predefined callbacks, as Fortran procedures. */
#define SMPI_F_CALLBACKS(kind, T)                                                          \
    void mpi_##kind##null_copy_fn_(int *o, int *k, T *e, T *in, T *out, int *flag, int *ierr) \
    {                                                                                      \
        (void)o, (void)k, (void)e, (void)in, (void)out;                                    \
        *flag = 0;                                                                         \
        *ierr = MPI_SUCCESS;                                                               \
    }                                                                                      \
    void mpi_##kind##dup_fn_(int *o, int *k, T *e, T *in, T *out, int *flag, int *ierr)    \
    {                                                                                      \
        (void)o, (void)k, (void)e;                                                         \
        *out = *in;                                                                        \
        *flag = 1;                                                                         \
        *ierr = MPI_SUCCESS;                                                               \
    }                                                                                      \
    void mpi_##kind##null_delete_fn_(int *o, int *k, T *v, T *e, int *ierr)                \
    {                                                                                      \
        (void)o, (void)k, (void)v, (void)e;                                                \
        *ierr = MPI_SUCCESS;                                                               \
    }
SMPI_F_CALLBACKS(comm_, MPI_Aint)
SMPI_F_CALLBACKS(type_, MPI_Aint)
SMPI_F_CALLBACKS(win_, MPI_Aint)
SMPI_F_CALLBACKS(, int)

/* Indices of requests count from 1 in Fortran. */
static int smpi_f_index(int i) { return i == MPI_UNDEFINED ? i : i + 1; }
static MPI_Status *smpi_f_statuses(MPI_Status *s)
{
    return (void *)s == (void *)smpi_f_statuses_ignore_ || (void *)s == (void *)smpi_f_status_ignore_
        ? MPI_STATUSES_IGNORE : s;
}
void mpi_waitany_(int *count, MPI_Request *requests, int *index, MPI_Status *status, int *ierr)
{
    *ierr = MPI_Waitany(*count, requests, index, smpi_f_statuses(status));
    *index = smpi_f_index(*index);
}
void mpi_testany_(int *count, MPI_Request *requests, int *index, int *flag, MPI_Status *status,
                  int *ierr)
{
    *ierr = MPI_Testany(*count, requests, index, flag, smpi_f_statuses(status));
    *index = smpi_f_index(*index);
}
void mpi_waitsome_(int *incount, MPI_Request *requests, int *outcount, int *indices,
                   MPI_Status *statuses, int *ierr)
{
    *ierr = MPI_Waitsome(*incount, requests, outcount, indices, smpi_f_statuses(statuses));
    for (int i = 0; *outcount != MPI_UNDEFINED && i < *outcount; i++)
        indices[i] = smpi_f_index(indices[i]);
}
void mpi_testsome_(int *incount, MPI_Request *requests, int *outcount, int *indices,
                   MPI_Status *statuses, int *ierr)
{
    *ierr = MPI_Testsome(*incount, requests, outcount, indices, smpi_f_statuses(statuses));
    for (int i = 0; *outcount != MPI_UNDEFINED && i < *outcount; i++)
        indices[i] = smpi_f_index(indices[i]);
}

/* MPI-1: addresses and extents are default INTEGERs. */
void mpi_address_(void *location, int *address, int *ierr)
{
    MPI_Aint a;
    *ierr = MPI_Get_address(location, &a);
    *address = (int)a;
}
void mpi_type_extent_(int *type, int *extent, int *ierr)
{
    MPI_Aint lb, ext;
    *ierr = MPI_Type_get_extent(*type, &lb, &ext);
    *extent = (int)ext;
}
void mpi_type_lb_(int *type, int *lb, int *ierr)
{
    MPI_Aint l, ext;
    *ierr = MPI_Type_get_extent(*type, &l, &ext);
    *lb = (int)l;
}
void mpi_type_ub_(int *type, int *ub, int *ierr)
{
    MPI_Aint l, ext;
    *ierr = MPI_Type_get_extent(*type, &l, &ext);
    *ub = (int)(l + ext);
}
void mpi_type_hvector_(int *count, int *blocklength, int *stride, int *oldtype, int *newtype,
                       int *ierr)
{
    *ierr = MPI_Type_create_hvector(*count, *blocklength, (MPI_Aint)*stride, *oldtype, newtype);
}
static MPI_Aint *smpi_f_widen(const int *v, int n)
{
    MPI_Aint *w = malloc(sizeof(MPI_Aint) * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; i++)
        w[i] = v[i];
    return w;
}
void mpi_type_hindexed_(int *count, int *blocklengths, int *displacements, int *oldtype,
                        int *newtype, int *ierr)
{
    MPI_Aint *d = smpi_f_widen(displacements, *count);
    *ierr = MPI_Type_create_hindexed(*count, blocklengths, d, *oldtype, newtype);
    free(d);
}
void mpi_type_struct_(int *count, int *blocklengths, int *displacements, int *types,
                      int *newtype, int *ierr)
{
    MPI_Aint *d = smpi_f_widen(displacements, *count);
    *ierr = MPI_Type_create_struct(*count, blocklengths, d, types, newtype);
    free(d);
}
"#;

/// One argument of a C declaration.
struct Param {
    /// The declaration as written (`const int ranks[]`).
    decl: String,
    name: String,
    kind: Kind,
}

enum Kind {
    /// A scalar of this C type, passed by value in C.
    Scalar(&'static str),
    /// A buffer (`void *`): MPI_BOTTOM, MPI_IN_PLACE translated.
    Buffer,
    /// `MPI_Status *`: the ignore sentinels translated.
    Status,
    /// Ints (arrays or outputs): the int sentinels translated.
    Ints,
    /// Anything else passed by address unchanged (handles' arrays and
    /// outputs, MPI_Aint arrays, callbacks).
    Through,
    /// `const char *`.
    InString,
    /// `char *` the function fills.
    OutString,
}

/// A function of mpi.h: return type, name without `MPI_`, parameters.
struct Function {
    ret: String,
    name: String,
    params: Vec<Param>,
}

/// The `SMPI_CALL` declarations of `mpi_h` that have a generated Fortran
/// form.
fn functions(mpi_h: &str) -> Vec<Function> {
    mpi_h
        .lines()
        .filter_map(|l| l.strip_prefix("SMPI_CALL("))
        .filter_map(parse_call)
        .filter(|f| !NOT_GENERATED.contains(&f.name.as_str()))
        .filter(|f| !f.name.ends_with("_c2f") && !f.name.ends_with("_f2c"))
        .collect()
}

/// `ret, Name, (args))` into a function, or None when an argument has no
/// Fortran form.
fn parse_call(rest: &str) -> Option<Function> {
    let (ret, rest) = rest.split_once(',')?;
    let (name, rest) = rest.split_once(',')?;
    let args = rest.trim().strip_prefix('(')?.strip_suffix("))")?;
    let mut params = Vec::new();
    if args.trim() != "void" {
        for decl in args.split(',') {
            params.push(parse_param(decl.trim())?);
        }
    }
    Some(Function {
        ret: ret.trim().to_string(),
        name: name.trim().to_string(),
        params,
    })
}

fn parse_param(decl: &str) -> Option<Param> {
    if decl == "..." {
        return None;
    }
    let constant = decl.starts_with("const ");
    let bare = decl.trim_start_matches("const ");
    let array = bare.contains('[');
    let before_array = bare.split('[').next().unwrap_or(bare).trim();
    let stars = before_array.matches('*').count();
    let name_start = before_array.rfind([' ', '*']).map_or(0, |i| i + 1);
    let name = before_array[name_start..].to_string();
    let base = before_array[..name_start]
        .trim_end_matches(['*', ' '])
        .trim();
    let indirect = stars + usize::from(array);
    let int_like = INT_TYPES.contains(&base);
    let kind = match (base, indirect) {
        // `int ranges[][3]`: as declared.
        ("int", _) if bare.contains("[][") => Kind::Through,
        (_, 0) if int_like => Kind::Scalar("int"),
        (_, 0) => Kind::Scalar(WIDE_TYPES.iter().find(|&&t| t == base)?),
        ("void", 1) => Kind::Buffer,
        ("char", 1) if constant => Kind::InString,
        ("char", 1) => Kind::OutString,
        ("char", _) => return None,
        ("MPI_Status", 1) => Kind::Status,
        ("int", 1) => Kind::Ints,
        (_, 1) if int_like || WIDE_TYPES.contains(&base) => Kind::Through,
        (b, 1) if b.ends_with("_function") || b.ends_with("_fn") => Kind::Through,
        _ => return None,
    };
    Some(Param {
        decl: decl.to_string(),
        name,
        kind,
    })
}

/// The C source of the Fortran bindings.
pub fn bindings_c(mpi_h: &str) -> String {
    let mut s = String::from(
        "/* Generated by smpif90 from smpi-rs's mpi.h: the Fortran bindings. */\n\
         #include <mpi.h>\n#include <stdlib.h>\n#include <string.h>\n\n",
    );
    for &(_, symbol, ints, _, _) in SENTINELS {
        let _ = writeln!(
            s,
            "int {symbol}[{ints}] __attribute__((aligned(16), visibility(\"default\")));"
        );
    }
    s.push_str(
        r#"
static char *smpi_f_in(const char *s, size_t len)
{
    /* Leading and trailing blanks are not part of a Fortran string
     * argument (MPI 3.1, 9.1 and 17.2). */
    while (len > 0 && s[0] == ' ')
        s++, len--;
    while (len > 0 && s[len - 1] == ' ')
        len--;
    char *c = malloc(len + 1);
    memcpy(c, s, len);
    c[len] = 0;
    return c;
}
static void smpi_f_out(char *f, size_t len, const char *c)
{
    size_t n = strlen(c);
    if (n > len)
        n = len;
    memcpy(f, c, n);
    memset(f + n, ' ', len - n);
}
"#,
    );
    s.push_str(HAND_WRITTEN);
    for f in functions(mpi_h) {
        write_binding(&mut s, &f);
    }
    // Every MPI function also as PMPI_ (the profiling interface): the
    // MPI_ name is weak, so that a profiling layer of the program defines
    // its own and calls ours as PMPI_.
    let names: Vec<String> = s
        .lines()
        .filter_map(|l| {
            let rest = ["void ", "double ", "MPI_Aint "]
                .iter()
                .find_map(|t| l.strip_prefix(t))?;
            let name = rest.split('(').next()?;
            (name.starts_with("mpi_") && !name.ends_with("_fn_")).then(|| name.to_string())
        })
        .collect();
    for name in names {
        let _ = writeln!(
            s,
            "#pragma weak {name}
extern __typeof__({name}) p{name} __attribute__((alias(\"{name}\")));"
        );
    }
    s
}

fn write_binding(s: &mut String, f: &Function) {
    let fname = format!("mpi_{}_", f.name.to_lowercase());
    let returns = f.ret != "int";
    let mut formals: Vec<String> = Vec::new();
    let mut lengths: Vec<String> = Vec::new();
    let mut before: Vec<String> = Vec::new();
    let mut after: Vec<String> = Vec::new();
    let mut actuals: Vec<String> = Vec::new();
    // An output string is written back only when the call succeeded and,
    // for calls with a flag (MPI_INFO_GET), found something: the
    // program's buffer is otherwise left alone.
    let found = if f.params.iter().any(|p| p.name == "flag") {
        "*ierr == MPI_SUCCESS && *flag"
    } else {
        "*ierr == MPI_SUCCESS"
    };
    for p in &f.params {
        let n = &p.name;
        match &p.kind {
            Kind::Scalar(t) => {
                formals.push(format!("{t} *{n}"));
                actuals.push(format!("*{n}"));
            }
            Kind::Buffer => {
                formals.push(format!("void *{n}"));
                actuals.push(sentinel_translation(n, Sentinel::Buffer, "void *"));
            }
            Kind::Status => {
                formals.push(format!("MPI_Status *{n}"));
                actuals.push(sentinel_translation(n, Sentinel::Status, "MPI_Status *"));
            }
            Kind::Ints => {
                formals.push(format!("int *{n}"));
                actuals.push(sentinel_translation(n, Sentinel::Ints, "int *"));
            }
            Kind::Through => {
                formals.push(p.decl.trim_start_matches("const ").to_string());
                actuals.push(n.clone());
            }
            Kind::InString => {
                formals.push(format!("char *{n}"));
                lengths.push(format!("size_t {n}_len"));
                before.push(format!("char *{n}_c = smpi_f_in({n}, {n}_len);"));
                actuals.push(format!("{n}_c"));
                after.push(format!("free({n}_c);"));
            }
            Kind::OutString => {
                formals.push(format!("char *{n}"));
                lengths.push(format!("size_t {n}_len"));
                before.push(format!(
                    "size_t {n}_size = {n}_len + 1 > 8192 ? {n}_len + 1 : 8192;\n    \
                     char *{n}_c = calloc(1, {n}_size);"
                ));
                actuals.push(format!("{n}_c"));
                after.push(format!(
                    "if ({found})\n        smpi_f_out({n}, {n}_len, {n}_c);\n    free({n}_c);"
                ));
            }
        }
    }
    // The value-length argument of MPI_Info_get bounds what C writes: the
    // buffer is at least that long (above), whatever the Fortran length.
    if !returns {
        formals.push("int *ierr".into());
    }
    formals.extend(lengths);
    let ret = if returns { f.ret.as_str() } else { "void" };
    let call = format!("MPI_{}({})", f.name, actuals.join(", "));
    let formals = if formals.is_empty() {
        "void".to_string()
    } else {
        formals.join(", ")
    };
    let _ = writeln!(s, "{ret} {fname}({formals})\n{{");
    for b in &before {
        let _ = writeln!(s, "    {b}");
    }
    if returns {
        let _ = writeln!(s, "    return {call};");
    } else {
        let _ = writeln!(s, "    *ierr = {call};");
    }
    for a in &after {
        let _ = writeln!(s, "    {a}");
    }
    s.push_str("}\n");
}

/// `name`, or the C sentinel when it is the address of a Fortran one of
/// that kind.
fn sentinel_translation(name: &str, kind: Sentinel, cast: &str) -> String {
    let mut e = format!("({cast}){name}");
    for &(_, symbol, _, c_value, k) in SENTINELS {
        if k == kind {
            e = format!("((void *){name} == (void *){symbol} ? ({cast}){c_value} : {e})");
        }
    }
    e
}

/// The integer value of a `#define` body: `12`, `(-2)`, `((MPI_Comm)1)`,
/// `0x7fffffff`, or another constant's name.
fn constant_value(body: &str, known: &[(String, i64)]) -> Option<i64> {
    let mut b = body.trim();
    loop {
        let inner = b
            .strip_prefix('(')
            .and_then(|x| x.strip_suffix(')'))
            .map(str::trim);
        match inner {
            Some(x) => b = x,
            None => break,
        }
        // A cast to an integer type: `(MPI_Comm)1`.
        if let Some(rest) = b.strip_prefix('(') {
            let (ty, value) = rest.split_once(')')?;
            let ty = ty.trim();
            if !INT_TYPES.contains(&ty) && !WIDE_TYPES.contains(&ty) {
                return None;
            }
            b = value.trim();
        }
    }
    if let Some(hex) = b.strip_prefix("0x") {
        return i64::from_str_radix(hex, 16).ok();
    }
    if let Ok(v) = b.parse::<i64>() {
        return Some(v);
    }
    known.iter().find(|(n, _)| n == b).map(|&(_, v)| v)
}

/// Integer constants of mpi.h, in order: (name, value).
fn constants(mpi_h: &str) -> Vec<(String, i64)> {
    let mut out: Vec<(String, i64)> = Vec::new();
    for line in mpi_h.lines() {
        let Some(rest) = line.strip_prefix("#define MPI_") else {
            continue;
        };
        let Some((name, body)) = rest.split_once(char::is_whitespace) else {
            continue;
        };
        let name = format!("MPI_{name}");
        if name.contains('(') || out.iter().any(|(n, _)| n.eq_ignore_ascii_case(&name)) {
            continue;
        }
        if let Some(v) = constant_value(body, &out) {
            out.push((name, v));
        }
    }
    out
}

/// `mpif.h`: valid in fixed and free form (statements from column 7, no
/// line beyond column 72, `!` comments).
pub fn mpif_h(mpi_h: &str) -> String {
    let mut s = String::from(
        "! mpif.h of smpi-rs, generated by smpif90 from its mpi.h.\n\
         ! Integer handles are the C handles. No mpi_f08 module.\n",
    );
    let declare = |s: &mut String, ty: &str, name: &str, value: &str| {
        let _ = writeln!(s, "      {ty} {name}");
        let _ = writeln!(s, "      PARAMETER ({name}={value})");
    };
    for (name, value) in constants(mpi_h) {
        // An offset, whatever its value.
        let wide = name == "MPI_DISPLACEMENT_CURRENT";
        if i32::try_from(value).is_ok() && !wide {
            declare(&mut s, "INTEGER", &name, &value.to_string());
        } else {
            declare(&mut s, "INTEGER*8", &name, &format!("{value}_8"));
        }
    }
    declare(
        &mut s,
        "INTEGER",
        "MPI_STATUS_SIZE",
        &STATUS_SIZE.to_string(),
    );
    for (name, index) in STATUS_FIELDS {
        declare(&mut s, "INTEGER", name, &index.to_string());
    }
    for kind in [
        "MPI_ADDRESS_KIND",
        "MPI_OFFSET_KIND",
        "MPI_COUNT_KIND",
        "MPI_INTEGER_KIND",
    ] {
        let bytes = if kind == "MPI_INTEGER_KIND" { 4 } else { 8 };
        declare(&mut s, "INTEGER", kind, &bytes.to_string());
    }
    for &(name, symbol, ints, _, kind) in SENTINELS {
        let block = symbol.trim_end_matches('_').to_uppercase();
        let shape = match (kind, ints) {
            (Sentinel::Status, _) if name == "MPI_STATUSES_IGNORE" => {
                "(MPI_STATUS_SIZE,1)".to_string()
            }
            (Sentinel::Status, _) => "(MPI_STATUS_SIZE)".to_string(),
            (_, 1) if kind == Sentinel::Ints => "(1)".to_string(),
            _ => String::new(),
        };
        let _ = writeln!(s, "      INTEGER {name}{shape}");
        let _ = writeln!(s, "      COMMON /{block}/ {name}");
    }
    s.push_str(
        "      DOUBLE PRECISION MPI_WTIME, MPI_WTICK\n\
         \x20     EXTERNAL MPI_WTIME, MPI_WTICK\n\
         \x20     DOUBLE PRECISION PMPI_WTIME, PMPI_WTICK\n\
         \x20     EXTERNAL PMPI_WTIME, PMPI_WTICK\n",
    );
    // The predefined attribute callbacks are procedures in Fortran.
    for names in PREDEFINED_CALLBACKS.chunks(2) {
        let _ = writeln!(s, "      EXTERNAL {}", names.join(", "));
    }
    s
}

/// The kinds `MPI_SIZEOF` answers for: (suffix, Fortran type).
const SIZEOF_TYPES: &[(&str, &str)] = &[
    ("i1", "integer(kind=1)"),
    ("i2", "integer(kind=2)"),
    ("i4", "integer(kind=4)"),
    ("i8", "integer(kind=8)"),
    ("r4", "real(kind=4)"),
    ("r8", "real(kind=8)"),
    ("c4", "complex(kind=4)"),
    ("c8", "complex(kind=8)"),
    ("l4", "logical(kind=4)"),
    ("ch", "character(len=*)"),
];

/// The `mpi` module: `mpif.h` inside a module (no explicit interfaces),
/// the types of the functions that `mpif.h` leaves to the program
/// (Fortran 77 programs declare them themselves), and `MPI_SIZEOF`, a
/// generic of the module alone (scalars and arrays of every rank:
/// assumed-rank arguments).
pub fn mpi_module_f90() -> String {
    let mut s = String::from(
        "module mpi\n  implicit none\n  include 'mpif.h'\n  \
         integer(kind=MPI_ADDRESS_KIND), external :: MPI_AINT_ADD, MPI_AINT_DIFF\n  \
         interface MPI_SIZEOF\n",
    );
    for (suffix, _) in SIZEOF_TYPES {
        let _ = writeln!(s, "    module procedure smpi_sizeof_{suffix}");
    }
    s.push_str("  end interface\ncontains\n");
    for (suffix, ty) in SIZEOF_TYPES {
        let _ = writeln!(
            s,
            "  subroutine smpi_sizeof_{suffix}(x, size, ierror)\n    \
             {ty}, dimension(..) :: x\n    integer :: size, ierror\n    \
             size = storage_size(x) / 8\n    ierror = MPI_SUCCESS\n  end subroutine"
        );
    }
    s.push_str("end module mpi\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const MPI_H: &str = include_str!("../include/mpi.h");

    #[test]
    fn every_line_of_mpif_h_fits_fixed_form() {
        for line in mpif_h(MPI_H).lines() {
            assert!(line.len() <= 72, "too long for fixed form: {line}");
            assert!(
                line.starts_with('!') || line.starts_with("      "),
                "not a fixed-form statement: {line}"
            );
        }
    }

    #[test]
    fn constants_keep_their_c_values() {
        let c = constants(MPI_H);
        let value = |n: &str| c.iter().find(|(k, _)| k == n).map(|&(_, v)| v);
        assert_eq!(value("MPI_COMM_WORLD"), Some(1));
        assert_eq!(value("MPI_ANY_SOURCE"), Some(-2));
        assert_eq!(value("MPI_INTEGER"), Some(45));
        assert_eq!(value("MPI_TAG_UB"), Some(1));
        // Pointers are sentinels, not parameters.
        assert_eq!(value("MPI_BOTTOM"), None);
        assert_eq!(value("MPI_STATUS_IGNORE"), None);
    }

    #[test]
    fn bindings_translate_arguments() {
        let c = bindings_c(MPI_H);
        assert!(c.contains("void mpi_send_(void *buf, int *count, int *datatype, int *dest, int *tag, int *comm, int *ierr)"));
        assert!(c.contains("double mpi_wtime_(void)"));
        assert!(c.contains(
            "void mpi_comm_set_name_(int *comm, char *comm_name, int *ierr, size_t comm_name_len)"
        ));
        assert!(c.contains("smpi_f_in_place_ ? (void *)MPI_IN_PLACE"));
        assert!(c.contains("smpi_f_status_ignore_ ? (MPI_Status *)MPI_STATUS_IGNORE"));
        assert!(!c.contains("mpi_comm_f2c_"));
    }
}
