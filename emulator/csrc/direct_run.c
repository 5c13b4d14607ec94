/* A program built by smpicc, run directly (`./app` rather than
 * `smpirun ./app`), starts here and runs itself under smpirun with one rank,
 * so that configure's and CMake's test programs run and exit with their
 * own code.
 *
 * smpicc compiles this file into its cache (build.rs does not: it is part
 * of the programs, not of the emulator), with SMPI_SMPIRUN (the smpirun
 * next to that smpicc, a C string) and SMPI_INTERPRETER (the compiler's
 * dynamic linker) defined before it, and links it into every program with
 * `-Wl,-e,__smpi_start`. The program stays a shared object that smpirun
 * loads: dlopen ignores the interpreter and the entry point.
 *
 * Which smpirun: SMPI_SMPIRUN, else $SMPIRUN, else smpirun on PATH; when
 * none can be started, one line says how to run the program. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What the kernel reads to start the program: the dynamic linker. */
__attribute__((section(".interp"), used)) static const char
    smpi_interpreter[] = SMPI_INTERPRETER;

static const char smpi_smpirun[] = SMPI_SMPIRUN;

/* Set to the process id before smpirun is started: an exec'd smpirun keeps
 * the id, so finding it again means that smpirun ran the program as a plain
 * executable instead of loading it, which would loop. */
#define SMPI_GUARD "SMPI_RS_DIRECT_RUN"

static int same_file(const char *a, const char *b)
{
  struct stat sa, sb;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

__attribute__((visibility("hidden"), noreturn, used)) void
__smpi_direct_run(int argc, char **argv)
{
  /* Keeps .interp under --gc-sections: the entry's code refers to it. */
  __asm__ volatile("" : : "r"(smpi_interpreter));
  /* The program's path as smpirun needs it: argv[0] when it names this
   * file (as the user typed it), else the file the kernel ran. */
  char self[4096];
  const char *name = argc > 0 && argv[0] ? argv[0] : "program";
  const char *program = name;
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    self[n] = '\0';
    if (!strchr(name, '/') || !same_file(name, self))
      program = self;
  }

  char pid[32];
  snprintf(pid, sizeof pid, "%ld", (long)getpid());
  const char *guard = getenv(SMPI_GUARD);
  int looped = guard && strcmp(guard, pid) == 0;
  setenv(SMPI_GUARD, pid, 1);

  /* smpirun -quiet -np 1 -- PROGRAM ARGS... */
  char **args = calloc((size_t)argc + 6, sizeof *args);
  const char *env = getenv("SMPIRUN");
  if (args && !looped) {
    int i = 1;
    args[i++] = "-quiet";
    args[i++] = "-np";
    args[i++] = "1";
    args[i++] = "--";
    args[i++] = (char *)program;
    for (int k = 1; k < argc; k++)
      args[i++] = argv[k];
    args[i] = NULL;
    if (smpi_smpirun[0] && access(smpi_smpirun, X_OK) == 0) {
      args[0] = (char *)smpi_smpirun;
      execv(smpi_smpirun, args);
    }
    if (env && env[0]) {
      args[0] = (char *)env;
      execvp(env, args);
    }
    args[0] = "smpirun";
    execvp("smpirun", args);
  }
  if (looped)
    fprintf(stderr,
            "%s: built by smpicc for smpi-rs: run it with `smpirun -np N %s` (the "
            "smpirun found ran it as a plain program; set SMPIRUN to smpi-rs's)\n",
            name, program);
  else
    fprintf(stderr,
            "%s: built by smpicc for smpi-rs: run it with `smpirun -np N %s` (no "
            "smpirun found: not at %s, not in $SMPIRUN, not on PATH)\n",
            name, program, smpi_smpirun[0] ? smpi_smpirun : "(unknown)");
  _exit(127);
}

/* The entry point: argc and argv lie on the initial stack. */
#if defined(__x86_64__)
__asm__(".text\n"
        ".globl __smpi_start\n"
        ".hidden __smpi_start\n"
        ".type __smpi_start, @function\n"
        "__smpi_start:\n"
        "\txorl %ebp, %ebp\n"
        "\tmovl (%rsp), %edi\n"
        "\tleaq 8(%rsp), %rsi\n"
        "\tandq $-16, %rsp\n"
        "\tcall __smpi_direct_run\n"
        "\thlt\n"
        ".size __smpi_start, . - __smpi_start\n");
#elif defined(__aarch64__)
__asm__(".text\n"
        ".globl __smpi_start\n"
        ".hidden __smpi_start\n"
        ".type __smpi_start, %function\n"
        "__smpi_start:\n"
        "\tmov x29, #0\n"
        "\tmov x30, #0\n"
        "\tldr x0, [sp]\n"
        "\tadd x1, sp, #8\n"
        "\tbl __smpi_direct_run\n"
        "\tbrk #0\n"
        ".size __smpi_start, . - __smpi_start\n");
#else
#error "smpicc cannot make programs run directly on this architecture"
#endif
