//! smpirun's command line. SimGrid spells options with one dash (`-np 4`,
//! `-platform FILE`), which clap would read as clusters of short flags, so
//! [`rewrite`] first turns every option before the program into clap's
//! `--name=value` form and puts `--` before the program: whatever follows
//! the program is the program's, untouched, even if it looks like an
//! option. Then clap parses the result into [`Options`].

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use clap::{CommandFactory, Parser, ValueHint};

/// One option of the command line: its long name in [`Options`], the
/// other names SimGrid users type, and whether it takes a value. Every
/// name is accepted with one dash or two.
struct Spelling {
    long: &'static str,
    aliases: &'static [&'static str],
    takes_value: bool,
}

/// An option that takes a value.
const fn valued(long: &'static str, aliases: &'static [&'static str]) -> Spelling {
    Spelling {
        long,
        aliases,
        takes_value: true,
    }
}

/// An option that takes no value.
const fn flag(long: &'static str, aliases: &'static [&'static str]) -> Spelling {
    Spelling {
        long,
        aliases,
        takes_value: false,
    }
}

const SPELLINGS: &[Spelling] = &[
    valued("np", &["n"]),
    valued("platform", &[]),
    valued("hostfile", &["machinefile"]),
    valued("cfg", &[]),
    valued("log", &[]),
    flag("no-privatize", &[]),
    flag("quiet", &[]),
    flag("map", &[]),
    flag("print-platform", &[]),
    flag("help", &["h"]),
    flag("help-coll", &[]),
    valued("calibrate-blas", &[]),
    valued("blas-lib", &[]),
    flag("version", &["v"]),
    flag("git-version", &[]),
    valued("completions", &[]),
    valued("wrapper", &[]),
    flag("gdb", &[]),
    flag("lldb", &[]),
    flag("vgdb", &[]),
    flag("keep-temps", &[]),
    valued("tmpdir", &[]),
    flag("analyze", &[]),
    valued("bandwidth", &[]),
    valued("latency", &[]),
    flag("foreground", &[]),
    valued("replay", &[]),
    flag("trace", &[]),
    flag("trace-ti", &[]),
    valued("trace-file", &[]),
    valued("trace-comment", &[]),
    valued("trace-comment-file", &[]),
    flag("trace-grouped", &[]),
    flag("trace-resource", &[]),
];

/// A command line that cannot be rewritten.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum CliError {
    #[error("unknown option '{option}'{}; smpirun -help lists the options", did_you_mean(.suggestion))]
    UnknownOption {
        option: String,
        suggestion: Option<String>,
    },
    #[error("option '{0}' needs a value")]
    MissingValue(String),
    #[error("option '{0}' takes no value")]
    UnexpectedValue(String),
}

fn did_you_mean(suggestion: &Option<String>) -> String {
    suggestion
        .as_ref()
        .map_or(String::new(), |s| format!(" (did you mean '{s}'?)"))
}

fn spelling(name: &str) -> Option<&'static Spelling> {
    SPELLINGS
        .iter()
        .find(|s| s.long == name || s.aliases.contains(&name))
}

/// The option nearest to a mistyped `name` (without its dashes), spelled
/// with `dashes`, when it is one or two edits away.
fn nearest_option(name: &str, dashes: &str) -> Option<String> {
    SPELLINGS
        .iter()
        .map(|s| s.long)
        .map(|long| (long, strsim::damerau_levenshtein(name, long)))
        .filter(|&(_, d)| d <= 2 && d < name.len())
        .min_by_key(|&(_, d)| d)
        .map(|(long, _)| format!("{dashes}{long}"))
}

/// Rewrites smpirun's arguments (without the command name) for clap:
/// every option before the program becomes `--long` or `--long=value`
/// (whatever spelling it had: `-np 4`, `--np 4`, `-n 4`, `--np=4`), then
/// comes `--` and the program with its arguments. An explicit `--` also
/// ends the options. The first argument that does not start with `-` is
/// the program.
///
/// As SimGrid's smpirun does, `--cfg=...` and `--log=...` arguments after
/// the program are smpirun's, not the program's (test harnesses append
/// them to whole command lines); their value is split on white space, so
/// `--cfg="a:1 b:2"` is two settings. Every other argument after the
/// program is passed on as given, and so is everything after an explicit
/// `--` (which a program run directly uses to keep its own arguments).
pub fn rewrite(args: Vec<OsString>) -> Result<Vec<OsString>, CliError> {
    let mut out = vec![OsString::from("smpirun")];
    let mut it = args.into_iter();
    while let Some(arg) = it.next() {
        let bytes = arg.as_bytes();
        if bytes == b"--" || !bytes.starts_with(b"-") {
            let mut program = vec![OsString::from("--")];
            // After an explicit `--`, everything is the program's.
            let explicit = bytes == b"--";
            if !explicit {
                program.push(arg);
            }
            for rest in it {
                match stolen_setting(&rest).filter(|_| !explicit) {
                    Some(settings) => out.extend(settings),
                    None => program.push(rest),
                }
            }
            out.extend(program);
            return Ok(out);
        }
        let dashes = if bytes.starts_with(b"--") { "--" } else { "-" };
        let body = &bytes[dashes.len()..];
        let (name, inline) = match body.iter().position(|&b| b == b'=') {
            Some(eq) => (&body[..eq], Some(&body[eq + 1..])),
            None => (body, None),
        };
        let unknown = || {
            let name = String::from_utf8_lossy(name);
            CliError::UnknownOption {
                option: arg.to_string_lossy().into_owned(),
                suggestion: nearest_option(&name, dashes),
            }
        };
        let spec = std::str::from_utf8(name)
            .ok()
            .and_then(spelling)
            .ok_or_else(unknown)?;
        let mut long = OsString::from(format!("--{}", spec.long));
        match (spec.takes_value, inline) {
            (true, Some(value)) => {
                long.push("=");
                long.push(OsStr::from_bytes(value));
            }
            (true, None) => {
                let value = it
                    .next()
                    .ok_or_else(|| CliError::MissingValue(arg.to_string_lossy().into_owned()))?;
                // Joined to its option, a value that starts with a dash
                // (or is `--`) cannot be taken for an option.
                long.push("=");
                long.push(value);
            }
            (false, Some(_)) => {
                let name = String::from_utf8_lossy(&bytes[..dashes.len() + name.len()]);
                return Err(CliError::UnexpectedValue(name.into_owned()));
            }
            (false, None) => {}
        }
        out.push(long);
    }
    Ok(out)
}

/// The settings of a `--cfg=...` or `--log=...` argument found after the
/// program, one `--cfg=setting` per white-space-separated word, or `None`
/// for any other argument.
fn stolen_setting(arg: &OsStr) -> Option<Vec<OsString>> {
    let bytes = arg.as_bytes();
    let option = [&b"--cfg="[..], b"--log="]
        .into_iter()
        .find(|prefix| bytes.starts_with(prefix))?;
    Some(
        bytes[option.len()..]
            .split(|b| b.is_ascii_whitespace())
            .filter(|word| !word.is_empty())
            .map(|word| {
                let mut setting = OsString::from(OsStr::from_bytes(option));
                setting.push(OsStr::from_bytes(word));
                setting
            })
            .collect(),
    )
}

/// The text before the options in `-help`.
const ABOUT: &str = "\
Runs an MPI program built with smpicc, every rank in this one process, on a
simulated platform. MPI_Wtime returns simulated time.

Options take one dash, as SimGrid's smpirun spells them (-np 4, -platform
FILE), or two (--np 4, --np=4); -n is -np, -machinefile is -hostfile.
Everything after the program is the program's, except --cfg=... and
--log=..., which are smpirun's wherever they are (as in SimGrid).
A run prints nothing of its own unless stderr is a terminal or
--cfg=smpi/display-timing:yes asks for the closing timing line.";

/// The text after the options in `-help`.
const AFTER_HELP: &str = "\
The built-in platform (no -platform): a flat cluster of N hosts named
node-0..node-(N-1), each running at smpi/host-speed with one core, linked by
private 100 Gb/s (12.5 GBps), 1 us links to a non-blocking switch.

Compact platforms (-platform WORD instead of a file):
  flat:N  torus:D1,D2,..  'fat-tree:L;D..;U..;C..'  'dragonfly:G,Lb;C,Lk;R,Lg;N'
followed by :key=value options (bw, lat, sharing, speed, cores, loopback_bw,
loopback_lat, and for flat bb_bw, bb_lat, bb_sharing), e.g.
  -platform 'fat-tree:2;16,32;1,16;1,1:bw=10Gbps:lat=24us'

Logs (--log, SimGrid's syntax) go to stderr. smpirun's categories print
nothing unless named, as `[simulated time] [category/LEVEL] message`; the
program's (XBT_LOG_NEW_DEFAULT_CATEGORY) print from info up, as
`[host:rank:(rank+1) simulated time] [category/LEVEL] message`:
  --log=<category>.thres:<level>   (also .threshold, .thr...)
categories: root (all), engine, network, mpi, privatize, config, and the
program's; levels: trace, debug, verbose, info, warning, error, critical
(smpirun's categories print verbose as debug and critical as error).
Several settings may share one option, separated by commas or spaces, and
--log may be repeated; no_loc leaves source locations out of the
program's lines.";

/// The parsed command line.
#[derive(Debug, Parser)]
#[command(
    name = "smpirun",
    about = ABOUT,
    override_usage = "smpirun [-np N] [-platform FILE] [-hostfile FILE] [--cfg=name:value]...\n       \
                      [--log=category.thres:level]... [-no-privatize] [-quiet] ./app [args...]",
    after_help = AFTER_HELP,
    disable_help_flag = true,
    disable_version_flag = true,
    args_override_self = true
)]
pub struct Options {
    /// number of ranks (default: one per hostfile
    /// slot, or per platform host)
    #[arg(short = 'n', long = "np", value_name = "N", value_parser = positive, verbatim_doc_comment)]
    pub np: Option<usize>,
    /// SimGrid platform XML (default: a built-in
    /// cluster of N hosts), or a compact
    /// description (see below)
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath, verbatim_doc_comment)]
    pub platform: Option<PathBuf>,
    /// one host name per line, `host:N` for N
    /// slots; rank i runs on slot i mod (number of
    /// slots)
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath, verbatim_doc_comment)]
    pub hostfile: Option<PathBuf>,
    /// set an option (listed below); overrides the
    /// platform's <config>
    #[arg(long = "cfg", value_name = "NAME:VALUE", verbatim_doc_comment)]
    pub cfg: Vec<String>,
    /// what to log, SimGrid's syntax (see below)
    #[arg(long = "log", value_name = "SETTINGS")]
    pub log: Vec<String>,
    /// all ranks share one copy of the program's
    /// globals (= --cfg=smpi/privatization:no)
    #[arg(long, verbatim_doc_comment)]
    pub no_privatize: bool,
    /// print nothing of smpirun's own but errors: no
    /// closing timing line (even on a terminal), no
    /// host-speed note, no warning about how ranks
    /// ended (exit codes, missing MPI_Finalize)
    #[arg(long, verbatim_doc_comment)]
    pub quiet: bool,
    /// print the host of each rank (`[rank R] ->
    /// host`) before running; --cfg=smpi/map
    /// chooses the placement
    #[arg(long = "map", verbatim_doc_comment)]
    pub print_map: bool,
    /// describe the platform (hosts, links, a
    /// bisection figure) and, given two host names
    /// where the program goes, the route between
    /// them, instead of running a program
    #[arg(long, verbatim_doc_comment)]
    pub print_platform: bool,
    /// this text
    #[arg(short = 'h', long)]
    pub help: bool,
    /// list the algorithms of each collective
    /// (--cfg=smpi/bcast:NAME)
    #[arg(long, verbatim_doc_comment)]
    pub help_coll: bool,
    /// time this machine's BLAS (-blas-lib, else
    /// libopenblas.so.0 or libblas.so.3) and write
    /// the kernel models into FILE, for
    /// --cfg=smpi/blas:model
    /// --cfg=smpi/blas-model-file:FILE
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath, verbatim_doc_comment)]
    pub calibrate_blas: Option<PathBuf>,
    /// the BLAS library -calibrate-blas times
    #[arg(long, value_name = "LIB")]
    pub blas_lib: Option<String>,
    /// print the version (also -v)
    #[arg(long)]
    pub version: bool,
    /// print the git hash of this build
    #[arg(long)]
    pub git_version: bool,
    /// run the whole simulation under COMMAND,
    /// e.g. "valgrind" or "gdb --args" (split as
    /// a shell would)
    #[arg(long, value_name = "COMMAND", verbatim_doc_comment)]
    pub wrapper: Option<String>,
    /// run under gdb (-wrapper "gdb --args")
    #[arg(long)]
    pub gdb: bool,
    /// run under lldb (-wrapper "lldb --")
    #[arg(long)]
    pub lldb: bool,
    /// run under valgrind's gdb server (-wrapper
    /// "valgrind --vgdb=yes --vgdb-error=0")
    #[arg(long, verbatim_doc_comment)]
    pub vgdb: bool,
    /// SimGrid's: keep the temporary files; smpirun
    /// writes none (program copies live in memory)
    #[arg(long, verbatim_doc_comment)]
    pub keep_temps: bool,
    /// SimGrid's: where temporary files go; smpirun
    /// writes none (program copies live in memory)
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath, verbatim_doc_comment)]
    pub tmpdir: Option<PathBuf>,
    /// print the simulated and wall times, the
    /// allocations and the leaks at the end
    /// (= --cfg=smpi/display-timing:yes
    /// --cfg=smpi/display-allocs:yes
    /// --cfg=smpi/list-leaks:50)
    #[arg(long, verbatim_doc_comment)]
    pub analyze: bool,
    /// without -platform: the bandwidth of the
    /// built-in cluster's links (SimGrid's old
    /// usage), e.g. 1.25e8 (B/s) or 1Gbps
    #[arg(long, value_name = "BW", verbatim_doc_comment)]
    pub bandwidth: Option<String>,
    /// without -platform: the latency of the
    /// built-in cluster's links, e.g. 1e-5 (s) or 10us
    #[arg(long, value_name = "LAT", verbatim_doc_comment)]
    pub latency: Option<String>,
    /// accepted for SimGrid's scripts; changes nothing
    #[arg(long, hide = true)]
    pub foreground: bool,
    /// SimGrid's trace replay: not available yet
    #[arg(long, value_name = "TRACE", hide = true)]
    pub replay: Option<PathBuf>,
    /// SimGrid's Paje tracing: not available yet
    #[arg(long, hide = true)]
    pub trace: bool,
    /// SimGrid's time-independent tracing: not
    /// available yet
    #[arg(long, hide = true)]
    pub trace_ti: bool,
    /// SimGrid's trace file name: not available yet
    #[arg(long, value_name = "FILE", hide = true)]
    pub trace_file: Option<PathBuf>,
    /// SimGrid's trace comment: not available yet
    #[arg(long, value_name = "TEXT", hide = true)]
    pub trace_comment: Option<String>,
    /// SimGrid's trace comment file: not available yet
    #[arg(long, value_name = "FILE", hide = true)]
    pub trace_comment_file: Option<PathBuf>,
    /// SimGrid's grouped traces: not available yet
    #[arg(long, hide = true)]
    pub trace_grouped: bool,
    /// SimGrid's resource traces: not available yet
    #[arg(long, hide = true)]
    pub trace_resource: bool,
    /// print a completion script for SHELL (bash,
    /// zsh, fish, elvish or powershell)
    #[arg(
        long,
        value_name = "SHELL",
        hide_possible_values = true,
        verbatim_doc_comment
    )]
    pub completions: Option<clap_complete::Shell>,
    /// the program, built with smpicc
    #[arg(value_name = "PROGRAM", value_hint = ValueHint::FilePath)]
    pub program: Option<PathBuf>,
    /// the program's arguments, passed as given
    #[arg(
        value_name = "ARGS",
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub args: Vec<OsString>,
}

fn positive(text: &str) -> Result<usize, String> {
    text.parse::<usize>()
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| "not a positive number of ranks".to_string())
}

/// Parses smpirun's arguments (without the command name).
pub fn parse(args: Vec<OsString>) -> anyhow::Result<Options> {
    let rewritten = rewrite(args)?;
    Options::try_parse_from(rewritten).map_err(|e| {
        // clap's message starts with "error: ", which smpirun's own prefix
        // makes redundant.
        let text = e.render().to_string();
        let text = text.strip_prefix("error: ").unwrap_or(&text).trim_end();
        anyhow::anyhow!("{text}")
    })
}

/// clap's help: usage, the options, and the notes after them.
pub fn help() -> String {
    Options::command().render_help().to_string()
}

/// The usage lines alone.
pub fn usage() -> String {
    Options::command().render_usage().to_string()
}

/// The completion script of `shell`.
pub fn completions(shell: clap_complete::Shell) -> Vec<u8> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Options::command(), "smpirun", &mut script);
    script
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::ffi::OsStringExt;

    /// An argument from bytes, which may not be UTF-8.
    fn raw(bytes: &[u8]) -> OsString {
        OsString::from_vec(bytes.to_vec())
    }

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    fn rewritten(list: &[&str]) -> Vec<String> {
        rewrite(args(list))
            .unwrap()
            .into_iter()
            .map(|a| a.into_string().unwrap())
            .collect()
    }

    fn parsed(list: &[&str]) -> Options {
        parse(args(list)).unwrap()
    }

    #[test]
    fn the_clap_definition_is_consistent() {
        Options::command().debug_assert();
        // Every spelling names an option of `Options`, with the same arity.
        let cmd = Options::command();
        for s in SPELLINGS {
            let arg = cmd
                .get_arguments()
                .find(|a| a.get_long() == Some(s.long))
                .unwrap_or_else(|| panic!("no --{} in Options", s.long));
            assert_eq!(arg.get_action().takes_values(), s.takes_value, "{}", s.long);
        }
    }

    #[test]
    fn every_old_spelling_becomes_a_long_option() {
        for (given, expected) in [
            (&["-np", "4"][..], "--np=4"),
            (&["-n", "4"], "--np=4"),
            (&["--np", "4"], "--np=4"),
            (&["--np=4"], "--np=4"),
            (&["-platform", "p.xml"], "--platform=p.xml"),
            (&["--platform", "p.xml"], "--platform=p.xml"),
            (&["-hostfile", "h"], "--hostfile=h"),
            (&["-machinefile", "h"], "--hostfile=h"),
            (&["--hostfile", "h"], "--hostfile=h"),
            (&["--cfg=smpi/test:0"], "--cfg=smpi/test:0"),
            (&["--cfg", "smpi/test:0"], "--cfg=smpi/test:0"),
            (&["-cfg", "smpi/test:0"], "--cfg=smpi/test:0"),
            (&["--log=config.thres:debug"], "--log=config.thres:debug"),
            (&["-no-privatize"], "--no-privatize"),
            (&["--no-privatize"], "--no-privatize"),
            (&["-quiet"], "--quiet"),
            (&["--quiet"], "--quiet"),
            (&["-map"], "--map"),
            (&["--map"], "--map"),
            (&["-print-platform"], "--print-platform"),
            (&["--print-platform"], "--print-platform"),
            (&["-help"], "--help"),
            (&["--help"], "--help"),
            (&["-h"], "--help"),
            (&["-help-coll"], "--help-coll"),
            (&["--help-coll"], "--help-coll"),
            (&["-calibrate-blas", "m.txt"], "--calibrate-blas=m.txt"),
            (&["--calibrate-blas", "m.txt"], "--calibrate-blas=m.txt"),
            (&["-blas-lib", "libblas.so.3"], "--blas-lib=libblas.so.3"),
            (&["--blas-lib", "libblas.so.3"], "--blas-lib=libblas.so.3"),
            (&["-version"], "--version"),
            (&["--version"], "--version"),
            (&["-v"], "--version"),
            (&["-git-version"], "--git-version"),
            (&["-wrapper", "gdb --args"], "--wrapper=gdb --args"),
            (&["-gdb"], "--gdb"),
            (&["-lldb"], "--lldb"),
            (&["-vgdb"], "--vgdb"),
            (&["-keep-temps"], "--keep-temps"),
            (&["-tmpdir", "/tmp"], "--tmpdir=/tmp"),
            (&["-analyze"], "--analyze"),
            (&["-bandwidth", "1e9"], "--bandwidth=1e9"),
            (&["-latency", "1e-6"], "--latency=1e-6"),
            (&["-foreground"], "--foreground"),
            (&["-replay", "t.txt"], "--replay=t.txt"),
            (&["-trace"], "--trace"),
            (&["-trace-ti"], "--trace-ti"),
            (&["-trace-file", "f"], "--trace-file=f"),
            (&["-trace-comment", "c"], "--trace-comment=c"),
            (&["-trace-comment-file", "f"], "--trace-comment-file=f"),
            (&["-trace-grouped"], "--trace-grouped"),
            (&["-trace-resource"], "--trace-resource"),
            (&["--completions", "bash"], "--completions=bash"),
        ] {
            assert_eq!(rewritten(given), ["smpirun", expected], "{given:?}");
        }
    }

    #[test]
    fn the_program_and_its_arguments_are_untouched() {
        assert_eq!(
            rewritten(&["-np", "2", "./app", "-np", "7", "--cfg", "x", "-quiet", "--"]),
            ["smpirun", "--np=2", "--", "./app", "-np", "7", "--cfg", "x", "-quiet", "--"]
        );
        let o = parsed(&["-np", "2", "./app", "-np", "7", "-quiet", "--", "-h"]);
        assert_eq!(o.np, Some(2));
        assert_eq!(o.program, Some(PathBuf::from("./app")));
        assert_eq!(o.args, args(&["-np", "7", "-quiet", "--", "-h"]));
        assert!(o.cfg.is_empty() && !o.quiet && !o.help);
        // An explicit `--` ends smpirun's options.
        let o = parsed(&["-quiet", "--", "-app-with-a-dash", "x"]);
        assert_eq!(o.program, Some(PathBuf::from("-app-with-a-dash")));
        assert_eq!(o.args, args(&["x"]));
    }

    #[test]
    fn cfg_and_log_after_the_program_are_smpiruns_as_in_simgrid() {
        assert_eq!(
            rewritten(&[
                "-np",
                "2",
                "./app",
                "-q",
                "--cfg=smpi/test:0",
                "x",
                "--log=a.thres:info b.thres:debug",
            ]),
            [
                "smpirun",
                "--np=2",
                "--cfg=smpi/test:0",
                "--log=a.thres:info",
                "--log=b.thres:debug",
                "--",
                "./app",
                "-q",
                "x"
            ]
        );
        let o = parsed(&[
            "--cfg=smpi/wtime:0",
            "./app",
            "--cfg=smpi/simulate-computation:no",
            "1",
        ]);
        assert_eq!(o.cfg, ["smpi/wtime:0", "smpi/simulate-computation:no"]);
        assert_eq!(o.args, args(&["1"]));
        // After an explicit `--`, nothing is taken.
        assert_eq!(
            parsed(&["--", "./app", "--cfg=smpi/wtime:0"]).args,
            args(&["--cfg=smpi/wtime:0"])
        );
        // Only the `=` forms are taken, as SimGrid's smpirun does.
        assert_eq!(
            parsed(&["./app", "--cfg", "x", "--cfgx=1"]).args,
            args(&["--cfg", "x", "--cfgx=1"])
        );
    }

    #[test]
    fn values_that_look_like_options_stay_values() {
        let o = parsed(&[
            "-blas-lib",
            "-weird.so",
            "--cfg",
            "--",
            "--platform",
            "-p",
            "./app",
        ]);
        assert_eq!(o.blas_lib.as_deref(), Some("-weird.so"));
        assert_eq!(o.cfg, ["--"]);
        assert_eq!(o.platform, Some(PathBuf::from("-p")));
        assert_eq!(o.program, Some(PathBuf::from("./app")));
    }

    #[test]
    fn arguments_that_are_not_utf8_pass_through() {
        let program = raw(b"./app\xff");
        let arg = raw(b"-\xfe-x");
        let value = raw(b"plat\xfd.xml");
        let o = parse(vec![
            OsString::from("-platform"),
            value.clone(),
            program.clone(),
            arg.clone(),
        ])
        .unwrap();
        assert_eq!(o.platform, Some(PathBuf::from(value)));
        assert_eq!(o.program, Some(PathBuf::from(program)));
        assert_eq!(o.args, [arg]);
        let o = parse(vec![raw(b"--platform=\xfc"), OsString::from("./app")]).unwrap();
        assert_eq!(o.platform, Some(PathBuf::from(raw(b"\xfc"))));
    }

    #[test]
    fn cfg_and_log_in_both_forms_and_in_order() {
        let o = parsed(&[
            "--cfg=smpi/test:0",
            "--log=config.thres:debug",
            "--cfg",
            "smpi/iprobe:1e-3",
            "-np",
            "3",
            "--log",
            "root.thres:info",
            "--cfg=smpi/wtime:0",
            "./app",
            "--log=mpi.thres:debug",
        ]);
        assert_eq!(o.cfg, ["smpi/test:0", "smpi/iprobe:1e-3", "smpi/wtime:0"]);
        assert_eq!(
            o.log,
            ["config.thres:debug", "root.thres:info", "mpi.thres:debug"]
        );
        assert!(o.args.is_empty());
    }

    #[test]
    fn flags_and_values() {
        let o = parsed(&[
            "-np",
            "8",
            "-platform",
            "flat:8",
            "-machinefile",
            "hosts.txt",
            "-no-privatize",
            "-quiet",
            "-map",
            "./app",
            "1",
        ]);
        assert_eq!(o.np, Some(8));
        assert_eq!(o.platform, Some(PathBuf::from("flat:8")));
        assert_eq!(o.hostfile, Some(PathBuf::from("hosts.txt")));
        assert!(o.no_privatize && o.quiet && o.print_map);
        assert_eq!(o.args, args(&["1"]));
        // Repeated options: the last one wins, as before.
        let o = parsed(&["-np", "2", "-quiet", "-quiet", "-np", "5"]);
        assert_eq!(o.np, Some(5));
        assert!(o.quiet && o.program.is_none());
        // -print-platform takes its two host names where the program goes.
        let o = parsed(&["-platform", "flat:8", "-print-platform", "node-0", "node-7"]);
        assert!(o.print_platform);
        assert_eq!(o.program, Some(PathBuf::from("node-0")));
        assert_eq!(o.args, args(&["node-7"]));
        let o = parsed(&["-calibrate-blas", "m.txt", "-blas-lib", "libblas.so.3"]);
        assert_eq!(o.calibrate_blas, Some(PathBuf::from("m.txt")));
        assert_eq!(o.blas_lib.as_deref(), Some("libblas.so.3"));
        assert!(parsed(&["-version"]).version);
        assert!(parsed(&["-h"]).help && parsed(&["-help"]).help);
        assert!(parsed(&["-help-coll"]).help_coll);
        assert_eq!(
            parsed(&["--completions=zsh"]).completions,
            Some(clap_complete::Shell::Zsh)
        );
        assert!(parsed(&[]).program.is_none());
    }

    #[test]
    fn unknown_options_are_named_with_a_guess() {
        let e = rewrite(args(&["-platfrom", "x.xml", "./app"])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown option '-platfrom' (did you mean '-platform'?); smpirun -help lists the \
             options"
        );
        let e = rewrite(args(&["--qiet"])).unwrap_err();
        assert!(e.to_string().contains("did you mean '--quiet'?"), "{e}");
        let e = rewrite(args(&["-zzzzzz", "./app"])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown option '-zzzzzz'; smpirun -help lists the options"
        );
        assert!(matches!(
            rewrite(args(&["-", "./app"])),
            Err(CliError::UnknownOption { option, .. }) if option == "-"
        ));
        // Options after the program are the program's, however odd.
        assert!(rewrite(args(&["./app", "-zzzzzz"])).is_ok());
    }

    #[test]
    fn bad_values_are_errors() {
        assert_eq!(
            rewrite(args(&["./x", "-np"])).map(|a| a.len()),
            Ok(4),
            "after the program, -np is the program's"
        );
        assert_eq!(
            rewrite(args(&["-np"])),
            Err(CliError::MissingValue("-np".into()))
        );
        assert_eq!(
            rewrite(args(&["--quiet=yes"])),
            Err(CliError::UnexpectedValue("--quiet".into()))
        );
        for bad in [&["-np", "0"][..], &["-np", "-3"], &["-np", "four"]] {
            let e = parse(args(bad)).unwrap_err().to_string();
            assert!(e.contains("not a positive number of ranks"), "{bad:?}: {e}");
            assert!(!e.starts_with("error:"), "{e}");
        }
        let e = parse(args(&["--completions", "tcsh"]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("tcsh") && e.contains("bash"), "{e}");
    }

    #[test]
    fn help_keeps_the_explanations() {
        let text = help();
        for part in [
            "Usage: smpirun [-np N] [-platform FILE]",
            "--np <N>",
            "--cfg <NAME:VALUE>",
            "--log <SETTINGS>",
            "--completions <SHELL>",
            "The built-in platform (no -platform)",
            "'fat-tree:2;16,32;1,16;1,1:bw=10Gbps:lat=24us'",
            "categories: root (all), engine, network, mpi, privatize, config",
        ] {
            assert!(text.contains(part), "no '{part}' in:\n{text}");
        }
        let usage = usage();
        assert!(usage.starts_with("Usage: smpirun"), "{usage}");
        for category in crate::log::Category::ALL {
            assert!(AFTER_HELP.contains(category.name()), "{}", category.name());
        }
    }

    #[test]
    fn completion_scripts_name_the_options() {
        for shell in [
            clap_complete::Shell::Bash,
            clap_complete::Shell::Zsh,
            clap_complete::Shell::Fish,
        ] {
            let script = String::from_utf8(completions(shell)).unwrap();
            assert!(
                script.contains("platform") && script.contains("completions"),
                "{shell}"
            );
        }
    }
}
