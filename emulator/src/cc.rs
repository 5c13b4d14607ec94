//! `smpicc` and `smpicxx`: compiler wrappers that build an MPI program as a
//! position-independent shared object that `smpirun` can load once per rank.
//!
//! Everything the wrappers need travels inside the binary: the headers are
//! embedded, and the ABI shim (one tiny jump stub per MPI entry point, going
//! through a table that smpirun fills in after loading each copy) is
//! generated from [`crate::abi_symbols`]. Both are written once into a cache
//! directory keyed by their content, so the wrappers work from any directory
//! and after `cargo install`.
//!
//! Because the program carries its own shim, it has no link-time dependency
//! on a runtime library: undefined symbols are rejected at link time
//! (`-Wl,-z,defs`), so calling an MPI function the emulator lacks is a link
//! error naming that function.
//!
//! A program also carries an interpreter and an entry point of its own
//! (`csrc/direct_run.c`): run directly, as configure scripts and CMake run
//! their test programs, it execs `smpirun -np 1` on itself and so exits
//! with its own code. smpirun loads it with `dlopen`, which ignores both.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::hash::Hasher as _;
use std::os::unix::ffi::OsStringExt as _;
use std::path::PathBuf;
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::abi_symbols::{abi_hash, ABI_NAMES};

/// The embedded headers: (path under the include directory, contents).
/// Every path a SimGrid SMPI program includes is here (`smpi/mpi.h`,
/// `xbt/log.h`, ...): the include directory comes first on the command
/// line, so an installed SimGrid's headers are never mixed with ours.
const HEADERS: &[(&str, &str)] = &[
    ("mpi.h", include_str!("../include/mpi.h")),
    ("smpi.h", include_str!("../include/smpi.h")),
    ("smpi_helpers.h", include_str!("../include/smpi_helpers.h")),
    ("smpi/mpi.h", include_str!("../include/smpi/mpi.h")),
    ("smpi/smpi.h", include_str!("../include/smpi/smpi.h")),
    ("xbt/base.h", include_str!("../include/xbt/base.h")),
    ("xbt/log.h", include_str!("../include/xbt/log.h")),
    ("xbt/asserts.h", include_str!("../include/xbt/asserts.h")),
    ("xbt/sysdep.h", include_str!("../include/xbt/sysdep.h")),
    (
        "xbt/function_types.h",
        include_str!("../include/xbt/function_types.h"),
    ),
    (
        "simgrid/forward.h",
        include_str!("../include/simgrid/forward.h"),
    ),
    (
        "simgrid/actor.h",
        include_str!("../include/simgrid/actor.h"),
    ),
    ("simgrid/host.h", include_str!("../include/simgrid/host.h")),
    (
        "simgrid/plugins/energy.h",
        include_str!("../include/simgrid/plugins/energy.h"),
    ),
    (
        "simgrid/instr.h",
        include_str!("../include/simgrid/instr.h"),
    ),
    (
        "simgrid/modelchecker.h",
        include_str!("../include/simgrid/modelchecker.h"),
    ),
];

/// SimGrid 3.32's other public headers, which smpicc does not provide:
/// each is written as a stub that stops the compilation and says so, so
/// that a program never mixes an installed SimGrid's headers with ours
/// and fails the same way where SimGrid is not installed. (Headers in
/// SimGrid's subdirectories, `simgrid/s4u/...`, include `simgrid/forward.h`
/// or another of these.)
const NOT_PROVIDED: &[&str] = &[
    "simgrid/Exception.hpp",
    "simgrid/barrier.h",
    "simgrid/chrono.hpp",
    "simgrid/comm.h",
    "simgrid/cond.h",
    "simgrid/config.h",
    "simgrid/disk.h",
    "simgrid/engine.h",
    "simgrid/exec.h",
    "simgrid/link.h",
    "simgrid/mailbox.h",
    "simgrid/msg.h",
    "simgrid/mutex.h",
    "simgrid/s4u.hpp",
    "simgrid/semaphore.h",
    "simgrid/simix.h",
    "simgrid/simix.hpp",
    "simgrid/version.h",
    "simgrid/vm.h",
    "simgrid/zone.h",
    "smpi/forward.hpp",
    "smpi/mpif.h",
    "smpi/sampi.h",
    "smpi/smpi_extended_traces_fortran.h",
    "smpi/smpi_helpers.h",
    "smpi/smpi_helpers_internal.h",
    "smpi/smpi_main.h",
    "xbt/Extendable.hpp",
    "xbt/PropertyHolder.hpp",
    "xbt/asserts.hpp",
    "xbt/automaton.h",
    "xbt/automaton.hpp",
    "xbt/backtrace.hpp",
    "xbt/config.h",
    "xbt/config.hpp",
    "xbt/dict.h",
    "xbt/dynar.h",
    "xbt/ex.h",
    "xbt/file.hpp",
    "xbt/functional.hpp",
    "xbt/graph.h",
    "xbt/log.hpp",
    "xbt/mallocator.h",
    "xbt/misc.h",
    "xbt/module.h",
    "xbt/parmap.h",
    "xbt/parse_units.hpp",
    "xbt/promise.hpp",
    "xbt/random.hpp",
    "xbt/range.hpp",
    "xbt/replay.hpp",
    "xbt/signal.hpp",
    "xbt/str.h",
    "xbt/string.hpp",
    "xbt/system_error.hpp",
    "xbt/utility.hpp",
    "xbt/virtu.h",
    "xbt/xbt_os_time.h",
];

/// The stub written for a header of [`NOT_PROVIDED`].
fn not_provided_stub(path: &str) -> String {
    format!(
        "/* Written by smpicc: <{path}> is SimGrid's, and smpi-rs does not provide it. */\n\
         #error \"<{path}> is part of SimGrid's interface that smpi-rs does not provide \
         (smpicc provides mpi.h, smpi/mpi.h, smpi/smpi.h, xbt/log.h, xbt/sysdep.h, \
         xbt/asserts.h, xbt/base.h, xbt/function_types.h, simgrid/actor.h, \
         simgrid/forward.h, simgrid/host.h, simgrid/plugins/energy.h, simgrid/instr.h, \
         simgrid/modelchecker.h)\"\n"
    )
}

/// Where `smpicc -trace-call-location` gets its macros (SimGrid's path):
/// [`extended_traces`].
const EXTENDED_TRACES: &str = "smpi/smpi_extended_traces.h";

/// The macros of `-trace-call-location`, which <mpi.h> includes last:
/// every MPI function of the ABI first notes the place of its call
/// (`smpi_trace_set_call_location`), as SimGrid's header does.
fn extended_traces() -> String {
    let mut s = String::from(
        "/* Written by smpicc for -trace-call-location (which defines\n   \
         TRACE_CALL_LOCATION): each MPI call notes its place first. */\n\
         #ifndef SMPI_EXTENDED_TRACES_H\n#define SMPI_EXTENDED_TRACES_H\n",
    );
    for name in ABI_NAMES.iter().filter(|n| n.starts_with("MPI_")) {
        let _ = writeln!(
            s,
            "#define {name}(...) (smpi_trace_set_call_location(__FILE__, __LINE__), \
             {name}(__VA_ARGS__))"
        );
    }
    s.push_str("#endif\n");
    s
}

/// Every header smpicc writes: (path, contents).
fn all_headers() -> impl Iterator<Item = (&'static str, std::borrow::Cow<'static, str>)> {
    HEADERS
        .iter()
        .map(|&(name, text)| (name, std::borrow::Cow::Borrowed(text)))
        .chain(std::iter::once((
            EXTENDED_TRACES,
            std::borrow::Cow::Owned(extended_traces()),
        )))
        .chain(
            NOT_PROVIDED
                .iter()
                .map(|&name| (name, std::borrow::Cow::Owned(not_provided_stub(name)))),
        )
}

/// Which front end a wrapper drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    C,
    Cxx,
    /// `smpif90`, `smpiff` or `smpif77` (the wrapper's name): the same
    /// wrapper over gfortran.
    Fortran(&'static str),
}

impl Lang {
    fn wrapper_name(self) -> &'static str {
        match self {
            Lang::C => "smpicc",
            Lang::Cxx => "smpicxx",
            Lang::Fortran(name) => name,
        }
    }

    /// The variable naming the real compiler, and its default.
    fn compiler_variable(self) -> (&'static str, &'static str) {
        match self {
            Lang::C => ("SMPI_CC", "cc"),
            Lang::Cxx => ("SMPI_CXX", "c++"),
            Lang::Fortran(_) => ("SMPI_FC", "gfortran"),
        }
    }

    /// The real compiler: `$SMPI_CC`/`$SMPI_CXX`/`$SMPI_FC`, else
    /// `cc`/`c++`/`gfortran`. (Not `$CC`: Makefiles set `CC=smpicc`, which
    /// would call us again.)
    fn compiler(self) -> OsString {
        let (var, default) = self.compiler_variable();
        std::env::var_os(var)
            .filter(|v| !v.is_empty())
            .unwrap_or_else(|| default.into())
    }
}

/// The directory holding the headers, the compiled shim and the entry
/// point of programs run directly.
pub struct Toolkit {
    pub include_dir: PathBuf,
    pub shim_object: PathBuf,
    pub direct_run_object: PathBuf,
}

/// What Fortran programs need besides the [`Toolkit`], for one Fortran
/// compiler (module files are its own): `mpif.h` and `mpi.mod`, the
/// compiled bindings and the module's object.
pub struct FortranKit {
    pub include_dir: PathBuf,
    pub bindings_object: PathBuf,
    pub module_object: PathBuf,
    /// gfortran 10 or later: it rejects one routine called with buffers
    /// of different types in one file, which every program passing
    /// buffers to MPI through mpif.h does, unless told
    /// `-fallow-argument-mismatch` (MPICH's mpif90 tells it too).
    pub needs_mismatch_flag: bool,
}

impl FortranKit {
    /// Finds or builds the Fortran part next to `kit`, with the Fortran
    /// compiler `fc` and the C compiler `cc`.
    pub fn ensure(kit: &Toolkit, fc: &OsString, cc: &OsString) -> Result<FortranKit> {
        let version = Command::new(fc)
            .arg("-dumpfullversion")
            .output()
            .with_context(|| {
                format!("cannot run the Fortran compiler {fc:?} (install gfortran, or set SMPI_FC)")
            })?;
        let mpi_h = HEADERS
            .iter()
            .find(|(name, _)| *name == "mpi.h")
            .map(|&(_, text)| text)
            .context("mpi.h is embedded")?;
        let mpif_h = crate::fortran::mpif_h(mpi_h);
        let bindings_c = crate::fortran::bindings_c(mpi_h);
        // Keyed by the compiler (module files are its own) and by what is
        // generated.
        let mut h = fnv::FnvHasher::default();
        h.write(fc.as_encoded_bytes());
        h.write(&version.stdout);
        h.write(mpif_h.as_bytes());
        h.write(bindings_c.as_bytes());
        h.write(crate::fortran::mpi_module_f90().as_bytes());
        let base = kit
            .shim_object
            .parent()
            .context("the toolkit's directory")?
            .to_path_buf();
        let dir = base.join(format!("fortran-{:016x}", h.finish()));
        let major: Option<u32> = String::from_utf8_lossy(&version.stdout)
            .trim()
            .split('.')
            .next()
            .and_then(|m| m.parse().ok());
        let fkit = FortranKit {
            include_dir: dir.join("include"),
            bindings_object: dir.join("smpi_fortran.o"),
            module_object: dir.join("smpi_mpi_module.o"),
            needs_mismatch_flag: major.is_some_and(|m| m >= 10),
        };
        if fkit.bindings_object.is_file() && fkit.module_object.is_file() {
            return Ok(fkit);
        }
        let tmp = base.join(format!(".tmp-fortran-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        let include = tmp.join("include");
        std::fs::create_dir_all(&include)
            .with_context(|| format!("cannot create {}", include.display()))?;
        std::fs::write(include.join("mpif.h"), mpif_h)?;
        let bindings = tmp.join("smpi_fortran.c");
        std::fs::write(&bindings, bindings_c)?;
        let mut cmd = Command::new(cc);
        cmd.args(["-O2", "-fPIC", "-c", "-I"])
            .arg(&kit.include_dir)
            .arg(&bindings)
            .arg("-o")
            .arg(tmp.join("smpi_fortran.o"));
        compile(cmd, "the Fortran bindings")?;
        let module = tmp.join("smpi_mpi_module.f90");
        std::fs::write(&module, crate::fortran::mpi_module_f90())?;
        let mut cmd = Command::new(fc);
        cmd.args(["-fPIC", "-c", "-I"])
            .arg(&include)
            .arg("-J")
            .arg(&include)
            .arg(&module)
            .arg("-o")
            .arg(tmp.join("smpi_mpi_module.o"));
        compile(cmd, "the mpi module")?;
        publish(&tmp, &dir, &[&fkit.bindings_object, &fkit.module_object])?;
        Ok(fkit)
    }
}

fn cache_root() -> PathBuf {
    if let Some(dir) = std::env::var_os("SMPI_RS_CACHE").filter(|v| !v.is_empty()) {
        return PathBuf::from(dir);
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()) {
        return PathBuf::from(dir).join("smpi-rs");
    }
    if let Some(home) = std::env::var_os("HOME").filter(|v| !v.is_empty()) {
        return PathBuf::from(home).join(".cache").join("smpi-rs");
    }
    let uid = nix::unistd::getuid();
    std::env::temp_dir().join(format!("smpi-rs-{uid}"))
}

/// The shim's assembly source for this machine.
pub fn shim_source() -> Result<String> {
    let mut s = String::new();
    let hash = abi_hash();
    let arch = std::env::consts::ARCH;
    let not_loaded_msg = "this program was built by smpicc: run it with smpirun\\n";
    let msg_len = not_loaded_msg.len() - 1; // "\\n" is one byte once assembled
    writeln!(
        s,
        "# Generated by smpicc: MPI entry points jumping through __smpi_abi_table.\n\
         \t.section .note.GNU-stack,\"\",@progbits\n\
         \t.data\n\t.balign 8\n\t.globl __smpi_abi_table\n\t.type __smpi_abi_table, @object\n\
         \t.size __smpi_abi_table, 8\n__smpi_abi_table:\n.Lsmpi_table:\n\t.quad 0\n\
         \t.section .rodata\n\t.balign 8\n\t.globl __smpi_abi_hash\n\t.type __smpi_abi_hash, @object\n\
         \t.size __smpi_abi_hash, 8\n__smpi_abi_hash:\n\t.quad {hash:#x}\n\
         .Lsmpi_msg:\n\t.ascii \"{not_loaded_msg}\"\n\t.text"
    )?;
    // Run directly (not under smpirun), the table is empty: say so and exit.
    match arch {
        "x86_64" => writeln!(
            s,
            "\t.p2align 4\n.Lsmpi_not_loaded:\n\tsubq $8, %rsp\n\tmovl $2, %edi\n\
             \tleaq .Lsmpi_msg(%rip), %rsi\n\tmovl ${msg_len}, %edx\n\tcall write@PLT\n\
             \tmovl $127, %edi\n\tcall _exit@PLT"
        )?,
        "aarch64" => writeln!(
            s,
            "\t.p2align 4\n.Lsmpi_not_loaded:\n\tmov x0, #2\n\tadrp x1, .Lsmpi_msg\n\
             \tadd x1, x1, :lo12:.Lsmpi_msg\n\tmov x2, #{msg_len}\n\tbl write\n\
             \tmov x0, #127\n\tbl _exit"
        )?,
        other => bail!("smpicc does not know how to build the MPI shim for {other}"),
    }
    for (i, name) in ABI_NAMES.iter().enumerate() {
        let offset = 8 * i;
        // MPI_x is weak so that a profiling library or the program itself
        // can define it and call PMPI_x.
        let labels = if let Some(rest) = name.strip_prefix("MPI_") {
            format!(
                "\t.globl PMPI_{rest}\n\t.type PMPI_{rest}, @function\n\t.weak {name}\n\
                 \t.type {name}, @function\nPMPI_{rest}:\n{name}:"
            )
        } else {
            format!("\t.globl {name}\n\t.type {name}, @function\n{name}:")
        };
        let body = match arch {
            "x86_64" => format!(
                "\tmovq .Lsmpi_table(%rip), %r11\n\ttestq %r11, %r11\n\tjz .Lsmpi_not_loaded\n\
                 \tjmpq *{offset}(%r11)"
            ),
            _ => format!(
                "\tadrp x16, .Lsmpi_table\n\tldr x16, [x16, :lo12:.Lsmpi_table]\n\
                 \tcbz x16, .Lsmpi_not_loaded\n\tldr x16, [x16, #{offset}]\n\tbr x16"
            ),
        };
        writeln!(s, "\t.p2align 4\n{labels}\n{body}")?;
    }
    Ok(s)
}

/// The entry point of the programs smpicc links, for when they are run
/// directly: they exec smpirun (see the file).
const DIRECT_RUN_C: &str = include_str!("../csrc/direct_run.c");

/// The smpirun next to this wrapper, which the programs it links start
/// when they are run directly (if it is not there then, they look for
/// another).
fn smpirun_next_to_me() -> Vec<u8> {
    std::env::current_exe()
        .map(|p| p.with_file_name("smpirun").into_os_string().into_vec())
        .unwrap_or_default()
}

/// `bytes` as a C string literal: printable ASCII as is, except `"`, `\`
/// and `?` (trigraphs), everything else as octal escapes.
fn c_string(bytes: &[u8]) -> String {
    let mut s = String::from("\"");
    for &b in bytes {
        if (b' '..=b'~').contains(&b) && !matches!(b, b'"' | b'\\' | b'?') {
            s.push(char::from(b));
        } else {
            let _ = write!(s, "\\{b:03o}");
        }
    }
    s.push('"');
    s
}

/// The dynamic linker a link command names (`-dynamic-linker PATH`, as
/// `cc -###` prints the command it would run, gcc's unquoted, clang's
/// quoted).
fn dynamic_linker_in(commands: &str) -> Option<String> {
    commands.lines().find_map(|line| {
        let words = shlex::split(line)?;
        let at = words.iter().position(|w| w == "-dynamic-linker")?;
        words.get(at + 1).cloned()
    })
}

/// The dynamic linker `compiler` gives the executables it links, else the
/// usual one of glibc on this architecture.
fn dynamic_linker(compiler: &OsString) -> String {
    let asked = Command::new(compiler)
        .args(["-###", "-x", "c", "/dev/null", "-o", "/dev/null"])
        .output()
        .ok()
        .and_then(|o| dynamic_linker_in(&String::from_utf8_lossy(&o.stderr)));
    asked.unwrap_or_else(|| {
        match std::env::consts::ARCH {
            "aarch64" => "/lib/ld-linux-aarch64.so.1",
            _ => "/lib64/ld-linux-x86-64.so.2",
        }
        .to_string()
    })
}

/// The cache directory's name: the ABI hash, FNV-1a over the headers'
/// bytes (the same value as before the `fnv` crate computed it), and
/// FNV-1a over the direct-run entry and the smpirun it starts.
fn content_key(smpirun: &[u8]) -> String {
    let mut h = fnv::FnvHasher::default();
    for (name, text) in all_headers() {
        h.write(name.as_bytes());
        h.write(text.as_bytes());
    }
    let mut d = fnv::FnvHasher::default();
    d.write(DIRECT_RUN_C.as_bytes());
    d.write(smpirun);
    format!(
        "{:016x}-{:016x}-{:016x}",
        abi_hash(),
        h.finish(),
        d.finish()
    )
}

impl Toolkit {
    /// Finds or creates the cached headers, shim and direct-run entry.
    pub fn ensure(compiler: &OsString) -> Result<Toolkit> {
        let root = cache_root();
        let smpirun = smpirun_next_to_me();
        let key = content_key(&smpirun);
        let dir = root.join(&key);
        let toolkit = Toolkit {
            include_dir: dir.join("include"),
            shim_object: dir.join("smpi_shim.o"),
            direct_run_object: dir.join("smpi_direct_run.o"),
        };
        if toolkit.shim_object.is_file() && toolkit.direct_run_object.is_file() {
            return Ok(toolkit);
        }
        std::fs::create_dir_all(&root)
            .with_context(|| format!("cannot create the cache directory {}", root.display()))?;
        // Build in a private directory, then rename: concurrent smpicc runs
        // (make -j) never see a half-written toolkit.
        let tmp = root.join(format!(".tmp-{}-{key}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        std::fs::create_dir_all(tmp.join("include"))
            .with_context(|| format!("cannot create {}", tmp.display()))?;
        for (name, text) in all_headers() {
            let path = tmp.join("include").join(name);
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("cannot create {}", dir.display()))?;
            }
            std::fs::write(&path, text.as_bytes())
                .with_context(|| format!("cannot write {name} into {}", tmp.display()))?;
        }
        let asm = tmp.join("smpi_shim.s");
        std::fs::write(&asm, shim_source()?)?;
        let mut cmd = Command::new(compiler);
        cmd.arg("-c")
            .arg(&asm)
            .arg("-o")
            .arg(tmp.join("smpi_shim.o"));
        compile(cmd, "the MPI shim")?;
        let entry = tmp.join("smpi_direct_run.c");
        std::fs::write(
            &entry,
            format!(
                "#define SMPI_SMPIRUN {}\n#define SMPI_INTERPRETER {}\n#line 1 \"direct_run.c\"\n{DIRECT_RUN_C}",
                c_string(&smpirun),
                c_string(dynamic_linker(compiler).as_bytes())
            ),
        )?;
        let mut cmd = Command::new(compiler);
        cmd.args(["-x", "c", "-O2", "-fPIC", "-c"])
            .arg(&entry)
            .arg("-o")
            .arg(tmp.join("smpi_direct_run.o"));
        compile(cmd, "the direct-run entry")?;
        publish(
            &tmp,
            &dir,
            &[&toolkit.shim_object, &toolkit.direct_run_object],
        )?;
        Ok(toolkit)
    }
}

/// Runs one compilation of the cache's construction.
fn compile(mut cmd: Command, what: &str) -> Result<()> {
    let compiler = cmd.get_program().to_owned();
    let status = cmd
        .status()
        .with_context(|| format!("cannot run the compiler {compiler:?}"))?;
    if !status.success() {
        bail!("compiling {what} with {compiler:?} failed ({status})");
    }
    Ok(())
}

/// Moves a cache directory built in `tmp` into place as `dir` (if another
/// wrapper finished first, its copy is used) and checks that the files
/// `needed` are there.
fn publish(tmp: &std::path::Path, dir: &std::path::Path, needed: &[&PathBuf]) -> Result<()> {
    if std::fs::rename(tmp, dir).is_err() {
        let _ = std::fs::remove_dir_all(tmp);
    }
    if needed.iter().any(|f| !f.is_file()) {
        bail!(
            "the wrappers' cache {} is incomplete; remove it and retry",
            dir.display()
        );
    }
    Ok(())
}

/// What a command line asks the compiler to do.
#[derive(Debug, PartialEq, Eq)]
enum Mode {
    /// Compile, preprocess or assemble only (`-c`, `-S`, `-E`, `-M`...).
    CompileOnly,
    /// Produce a program (our shared object).
    Link,
    /// `-v` alone, `-dumpversion`, `-print-*`, `--help=CLASS`: pass through
    /// untouched (`--version` and `--help` are answered by [`answer_of`]).
    Query,
}

fn mode_of(args: &[OsString]) -> Mode {
    let strs: Vec<&str> = args.iter().filter_map(|a| a.to_str()).collect();
    if strs.iter().any(|a| {
        matches!(*a, "-dumpversion" | "-dumpfullversion" | "-dumpmachine")
            || a.starts_with("-print-")
            || a.starts_with("--help=")
    }) || strs == ["-v"]
    {
        return Mode::Query;
    }
    if strs
        .iter()
        .any(|a| matches!(*a, "-c" | "-S" | "-E" | "-M" | "-MM"))
    {
        Mode::CompileOnly
    } else {
        Mode::Link
    }
}

/// Builds the real compiler command for `args`.
fn build_command(lang: Lang, args: Vec<OsString>, pretend: bool) -> Result<Command> {
    let compiler = lang.compiler();
    let mode = mode_of(&args);
    let mut cmd = Command::new(&compiler);
    if mode == Mode::Query {
        cmd.args(args);
        return Ok(cmd);
    }
    let library = args.iter().any(|a| a == "-shared");
    // Line tables (only): the memory analysis names the source line of
    // each allocation from the address its malloc returns to (the
    // program's own -g or -g0, which come after, win).
    cmd.arg("-fPIC").arg("-g1");
    let (kit, fortran) = match lang {
        Lang::Fortran(_) => {
            // The shim and the bindings are C.
            let cc = Lang::C.compiler();
            let kit = Toolkit::ensure(&cc)?;
            let fkit = FortranKit::ensure(&kit, &compiler, &cc)?;
            // mpif.h and mpi.mod; then mpi.h, for C sources given to the
            // Fortran driver.
            cmd.arg("-I").arg(&fkit.include_dir);
            cmd.arg("-I").arg(&kit.include_dir);
            if fkit.needs_mismatch_flag {
                cmd.arg("-fallow-argument-mismatch");
            }
            (kit, Some(fkit))
        }
        Lang::C | Lang::Cxx => {
            let kit = Toolkit::ensure(&compiler)?;
            // Every allocation the program writes is made, as the
            // interposed malloc family sees it, at its line: the compiler
            // would otherwise drop the pairs it can prove unused
            // (SimGrid's macros had the same effect).
            cmd.args([
                "-fno-builtin-malloc",
                "-fno-builtin-calloc",
                "-fno-builtin-realloc",
                "-fno-builtin-free",
            ])
            .arg("-I")
            .arg(&kit.include_dir)
            .arg("-include")
            .arg(kit.include_dir.join("smpi_helpers.h"));
            (kit, None)
        }
    };
    for arg in args {
        match arg.to_str() {
            // Position-independent executables cannot become shared objects.
            Some("-pie") | Some("-static-pie") if !pretend => {}
            Some("-fPIE") | Some("-fpie") => {
                cmd.arg("-fPIC");
            }
            // SimGrid's: every MPI call notes its place (<mpi.h> then
            // includes the macros of smpi/smpi_extended_traces.h).
            Some("-trace-call-location") => {
                cmd.arg("-DTRACE_CALL_LOCATION");
            }
            _ => {
                cmd.arg(arg);
            }
        }
    }
    if mode == Mode::Link {
        if let Some(fkit) = &fortran {
            cmd.arg(&fkit.bindings_object).arg(&fkit.module_object);
        }
        cmd.arg(&kit.shim_object);
        if !pretend {
            // -Bsymbolic: the program's references to its own globals bind
            // to them, as in an executable. A shared object's would
            // otherwise go to a same-named symbol already loaded: a global
            // `int err` became libc's err() function.
            cmd.arg("-shared").arg("-Wl,-z,defs").arg("-Wl,-Bsymbolic");
            // Symbols bound at load (no lazy PLT slots): the whole GOT is
            // then read-only after relocation, so swap privatization,
            // which saves each rank's writable data, does not copy it per
            // rank (the PLT slots of the program's libc calls were 112 B
            // per rank of a 4,096-rank run).
            cmd.arg("-Wl,-z,relro").arg("-Wl,-z,now");
            if !library {
                // A program's main may sit in a static library (HPCC's
                // does): an executable's start-up code asks for it, which
                // pulls it from the archive; ask for it too.
                cmd.arg("-Wl,--undefined=main");
                // Run directly, the program starts smpirun on itself.
                cmd.arg(&kit.direct_run_object).arg("-Wl,-e,__smpi_start");
            }
        }
        cmd.arg("-lm");
    }
    Ok(cmd)
}

/// The command as one line of POSIX shell (`-show`), each word quoted by
/// `shlex` where the shell would otherwise split or expand it.
fn show(cmd: &Command) -> Result<String> {
    let words: Vec<String> = std::iter::once(cmd.get_program())
        .chain(cmd.get_args())
        .map(|w| w.to_string_lossy().into_owned())
        .collect();
    shlex::try_join(words.iter().map(String::as_str))
        .context("-show: the command cannot be written as shell words")
}

/// What the wrapper answers itself instead of building anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    /// `-help`, `--help`, `-h` alone: [`help`].
    Help,
    /// `-version` (SimGrid's): this wrapper's version and the compiler's
    /// first line.
    Version,
    /// `--version`: the compiler's own text, untouched, then this
    /// wrapper's version.
    CompilerThenVersion,
    /// `-git-version` (SimGrid's): the git hash alone.
    GitVersion,
    /// `-compiler-version` (SimGrid's): the compiler's `--version`.
    CompilerVersion,
}

/// The answer a command line asks for: the first of these options, in
/// the order given, as SimGrid's smpicc does. `-h` is the linker's
/// `-h NAME` (a soname) unless it comes alone; `--help=CLASS` and the
/// other queries (`-dumpversion`, `-v`, `-print-*`) are the compiler's.
fn answer_of(args: &[OsString]) -> Option<Answer> {
    if args.len() == 1 && args[0] == "-h" {
        return Some(Answer::Help);
    }
    args.iter().find_map(|a| match a.to_str()? {
        "-help" | "--help" => Some(Answer::Help),
        "-version" => Some(Answer::Version),
        "--version" => Some(Answer::CompilerThenVersion),
        "-git-version" | "--git-version" => Some(Answer::GitVersion),
        "-compiler-version" | "--compiler-version" => Some(Answer::CompilerVersion),
        _ => None,
    })
}

/// The wrapper's version line, in smpirun's form.
fn version_line(lang: Lang) -> String {
    format!(
        "{} (smpi-rs) {} ({})",
        lang.wrapper_name(),
        env!("CARGO_PKG_VERSION"),
        env!("SMPI_RS_GIT_HASH")
    )
}

/// What the wrapper is, after its version line; `compiler` as it should
/// be named.
fn what_it_is(lang: Lang, compiler: &str) -> String {
    format!(
        "{}: builds MPI programs for smpi-rs's smpirun,\n\
         a drop-in replacement of SimGrid 3.32's SMPI, with the compiler {compiler}",
        version_line(lang)
    )
}

/// `-help`: the wrapper's own options; the rest are the compiler's.
fn help(lang: Lang) -> String {
    let (var, default) = lang.compiler_variable();
    let compiler = lang.compiler().to_string_lossy().into_owned();
    let name = lang.wrapper_name();
    let what = what_it_is(lang, &compiler);
    format!(
        "\
Usage: {name} [compiler options] files... [-o program]

{what}.
{name} compiles like {compiler}, with smpi-rs's mpi.h, and links a program as a
shared object that `smpirun -np N ./program` loads, every rank in one
process. Run directly, the program runs itself as `smpirun -np 1 ./program`
would (configure and CMake can run their test programs): with the smpirun
next to {name}, else $SMPIRUN, else smpirun on PATH.

Options of {name} (every other option is the compiler's: {compiler} --help):
  -show              print the compiler command instead of running it
                     (also -compile-info, -link-info)
  -shared            build a library (of function models, for
                     --cfg=smpi/function-models) instead of a program
  -trace-call-location
                     every MPI call notes its file and line, which
                     --cfg=smpi/list-leaks then gives the handles it made
  -help, -h          this text
  -version           this wrapper's version and the compiler's
  --version          the compiler's version text, then this wrapper's
  -git-version       the git hash of this build
  -compiler-version  the compiler's version text alone

Environment:
  {var:<8}           the compiler (default {default})
  SMPIRUN            the smpirun of programs run directly, when none is
                     next to {name}
  SMPI_RS_CACHE      where the headers and the MPI shim are kept
  SMPI_PRETEND_CC=1  build plain executables instead (not for smpirun: they
                     stop at their first call of MPI or malloc)
"
    )
}

/// Prints `answer`; returns the exit code.
fn give(answer: Answer, lang: Lang, args: Vec<OsString>) -> Result<i32> {
    match answer {
        Answer::Help => print!("{}", help(lang)),
        Answer::GitVersion => println!("{}", env!("SMPI_RS_GIT_HASH")),
        Answer::Version => {
            let compiler = lang.compiler();
            let first = Command::new(&compiler)
                .arg("--version")
                .output()
                .ok()
                .filter(|o| o.status.success())
                .and_then(|o| {
                    let text = String::from_utf8_lossy(&o.stdout).into_owned();
                    text.lines().next().map(str::to_owned)
                })
                .unwrap_or_else(|| "(cannot run it)".into());
            println!(
                "{}:\n{first}",
                what_it_is(lang, &compiler.to_string_lossy())
            );
        }
        Answer::CompilerVersion | Answer::CompilerThenVersion => {
            // --version keeps the compiler's text first and whole: build
            // systems read it (meson looks for "Free Software Foundation",
            // SCons takes the version from the first line).
            let compiler = lang.compiler();
            let mut cmd = Command::new(&compiler);
            if answer == Answer::CompilerVersion {
                cmd.arg("--version");
            } else {
                cmd.args(args);
            }
            let status = cmd
                .status()
                .with_context(|| format!("cannot run the compiler {compiler:?}"));
            if answer == Answer::CompilerThenVersion {
                let above = format!("above ({})", compiler.to_string_lossy());
                println!("{}.", what_it_is(lang, &above));
            }
            return Ok(status?.code().unwrap_or(1));
        }
    }
    Ok(0)
}

/// Runs the wrapper with the process's arguments; returns the exit code.
pub fn run(lang: Lang) -> Result<i32> {
    let mut args: Vec<OsString> = std::env::args_os().skip(1).collect();
    if let Some(answer) = answer_of(&args) {
        return give(answer, lang, args);
    }
    let show_words = ["-show", "--show", "-compile-info", "-link-info"];
    let show_only = args.iter().any(|a| show_words.iter().any(|w| a == w));
    args.retain(|a| !show_words.iter().any(|w| a == w));
    let pretend = std::env::var_os("SMPI_PRETEND_CC").is_some_and(|v| !v.is_empty() && v != "0");
    if args.is_empty() && !show_only {
        eprintln!(
            "Usage: {0} [compiler options] files... [-o program]\n\
             {0} -help describes it.",
            lang.wrapper_name()
        );
        return Ok(2);
    }
    let mut cmd = build_command(lang, args, pretend)?;
    if show_only {
        println!("{}", show(&cmd)?);
        return Ok(0);
    }
    let output = cmd
        .output()
        .with_context(|| format!("cannot run the compiler {:?}", cmd.get_program()))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    std::io::Write::write_all(&mut std::io::stdout(), &output.stdout)?;
    eprint!("{stderr}");
    if !output.status.success() {
        explain_missing_symbols(&stderr, lang);
    }
    Ok(output.status.code().unwrap_or(1))
}

/// After a failed link, says which MPI functions the emulator lacks.
fn explain_missing_symbols(stderr: &str, lang: Lang) {
    let mut missing: Vec<String> = stderr
        .lines()
        .filter_map(|l| l.split("undefined reference to `").nth(1))
        .filter_map(|rest| rest.split('\'').next())
        .filter_map(|name| {
            if name.starts_with("MPI_") || name.starts_with("PMPI_") {
                Some(name.to_string())
            } else {
                // A Fortran binding: mpi_comm_create_keyval_.
                let f = name.strip_prefix("mpi_")?.strip_suffix('_')?;
                Some(format!("MPI_{} (Fortran)", f.to_uppercase()))
            }
        })
        .collect();
    missing.sort_unstable();
    missing.dedup();
    if !missing.is_empty() {
        eprintln!(
            "{}: this version of the emulator does not provide: {}",
            lang.wrapper_name(),
            missing.join(", ")
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    #[test]
    fn modes() {
        assert_eq!(mode_of(&os(&["-c", "a.c"])), Mode::CompileOnly);
        assert_eq!(mode_of(&os(&["a.c", "-o", "a"])), Mode::Link);
        assert_eq!(mode_of(&os(&["-dumpversion"])), Mode::Query);
        assert_eq!(mode_of(&os(&["-v"])), Mode::Query);
        assert_eq!(mode_of(&os(&["-print-prog-name=ld"])), Mode::Query);
        assert_eq!(mode_of(&os(&["--help=warnings"])), Mode::Query);
        assert_eq!(mode_of(&os(&["-E", "a.c"])), Mode::CompileOnly);
    }

    #[test]
    fn help_and_version_are_answered_by_the_wrapper() {
        let a = |v: &[&str]| answer_of(&os(v));
        for help in [
            &["-help"][..],
            &["--help"],
            &["-h"],
            &["-O2", "-help", "x.c"],
        ] {
            assert_eq!(a(help), Some(Answer::Help), "{help:?}");
        }
        assert_eq!(a(&["-version"]), Some(Answer::Version));
        assert_eq!(a(&["--version"]), Some(Answer::CompilerThenVersion));
        assert_eq!(a(&["-git-version"]), Some(Answer::GitVersion));
        assert_eq!(a(&["--git-version"]), Some(Answer::GitVersion));
        assert_eq!(a(&["-compiler-version"]), Some(Answer::CompilerVersion));
        // The first one wins, as in SimGrid's smpicc.
        assert_eq!(a(&["-version", "-help"]), Some(Answer::Version));
        // The compiler's own.
        for theirs in [
            &["-h", "libx.so.1", "-shared", "x.o"][..],
            &["--help=warnings"],
            &["-dumpversion"],
            &["-v"],
            &["-c", "x.c"],
        ] {
            assert_eq!(a(theirs), None, "{theirs:?}");
        }
    }

    #[test]
    fn our_headers_include_only_ours_from_simgrids_directories() {
        // An include of smpi/, xbt/ or simgrid/ that we do not embed would
        // be found in an installed SimGrid's headers (or not at all).
        for (name, text) in HEADERS {
            for line in text.lines() {
                let Some(rest) = line.trim_start().strip_prefix("#include <") else {
                    continue;
                };
                let included = rest.split('>').next().unwrap_or_default();
                let simgrids = ["smpi/", "xbt/", "simgrid/"]
                    .iter()
                    .any(|d| included.starts_with(d))
                    || matches!(included, "mpi.h" | "smpi.h");
                if simgrids {
                    assert!(
                        HEADERS.iter().any(|(n, _)| *n == included) || included == EXTENDED_TRACES,
                        "{name} includes <{included}>, which smpicc does not provide"
                    );
                }
            }
        }
    }

    #[test]
    fn help_names_the_wrapper_and_its_compiler() {
        let text = help(Lang::Cxx);
        assert!(text.starts_with("Usage: smpicxx "), "{text}");
        for part in [
            "-show",
            "-version",
            "SMPI_CXX",
            "SimGrid 3.32",
            "smpirun -np N",
        ] {
            assert!(text.contains(part), "no {part} in:\n{text}");
        }
        assert!(version_line(Lang::C).starts_with("smpicc (smpi-rs) "));
    }

    #[test]
    fn simgrids_other_headers_are_stubs_that_stop_the_compilation() {
        for name in NOT_PROVIDED {
            assert!(
                !HEADERS.iter().any(|(n, _)| n == name),
                "{name} is both provided and not"
            );
            let stub = not_provided_stub(name);
            assert!(stub.contains(&format!("#error \"<{name}> is part of SimGrid's")));
        }
        assert_eq!(
            all_headers().count(),
            HEADERS.len() + 1 + NOT_PROVIDED.len()
        );
    }

    #[test]
    fn shim_has_every_entry_point() {
        let s = shim_source().unwrap();
        for name in ABI_NAMES {
            assert!(s.contains(&format!("\n{name}:")), "{name} missing");
        }
        assert!(s.contains("PMPI_Send:"));
        assert!(s.contains(".weak MPI_Send"));
        assert!(s.contains(&format!("{:#x}", abi_hash())));
    }

    #[test]
    fn paths_become_c_strings() {
        assert_eq!(c_string(b"/usr/bin/smpirun"), r#""/usr/bin/smpirun""#);
        assert_eq!(
            c_string(b"a\"b\\c??/\n\xff"),
            r#""a\042b\134c\077\077/\012\377""#
        );
        assert_eq!(c_string(b""), r#""""#);
    }

    #[test]
    fn the_dynamic_linker_is_read_from_the_link_command() {
        let gcc = " /usr/lib/gcc/x86_64-linux-gnu/12/collect2 -plugin x.so \"-plugin-opt=-pass-through=-lc\" \
                   --eh-frame-hdr -m elf_x86_64 -dynamic-linker /lib64/ld-linux-x86-64.so.2 -pie -o x";
        let clang = r#" "/usr/bin/ld" "-pie" "-m" "elf_x86_64" "-dynamic-linker" "/nix/store/x glibc/lib/ld-linux-x86-64.so.2" "-o" "x""#;
        let text = format!("Using built-in specs.\nCOLLECT_GCC=cc\n{gcc}\n");
        assert_eq!(
            dynamic_linker_in(&text).as_deref(),
            Some("/lib64/ld-linux-x86-64.so.2")
        );
        assert_eq!(
            dynamic_linker_in(clang).as_deref(),
            Some("/nix/store/x glibc/lib/ld-linux-x86-64.so.2")
        );
        assert_eq!(dynamic_linker_in("gcc -static -o x"), None);
    }

    #[test]
    fn show_quotes_for_the_shell() {
        let mut cmd = Command::new("/usr/bin/cc");
        cmd.args(["-O2", "a b", "-Wl,-z,defs", "it's", ""]);
        let line = show(&cmd).unwrap();
        // shlex also quotes commas (brace expansion), which is equally
        // valid shell: what matters is that the shell reads the words back.
        assert_eq!(line, r#"/usr/bin/cc -O2 'a b' '-Wl,-z,defs' "it's" ''"#);
        assert_eq!(
            shlex::split(&line).unwrap(),
            ["/usr/bin/cc", "-O2", "a b", "-Wl,-z,defs", "it's", ""]
        );
    }
}
