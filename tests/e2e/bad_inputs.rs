//! Bad inputs, one row each: what a newcomer (or a misbehaving program)
//! gives smpirun, the exit code it must end with, and the first line it
//! must print on stderr (a prefix of it). No panic text, no hang.

use super::*;

/// A platform with one link and two hosts, with `link` and `host_b`
/// spliced in.
fn two_hosts(name: &str, bandwidth: &str, speed_b: &str) -> PathBuf {
    write_scratch(
        name,
        &format!(
            "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n\
             <platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n\
             <host id=\"a\" speed=\"1Gf\"/>\n<host id=\"b\" speed=\"{speed_b}\"/>\n\
             <link id=\"l\" bandwidth=\"{bandwidth}\" latency=\"1us\"/>\n\
             <route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></route>\n</zone>\n</platform>\n"
        ),
    )
}

struct Row {
    /// smpirun's arguments; `APP` stands for tests/c/misbehave.c built,
    /// `PP` for examples/pingpong.c.
    args: Vec<String>,
    code: i32,
    first_line: &'static str,
}

fn row(args: &[&str], code: i32, first_line: &'static str) -> Row {
    Row {
        args: args.iter().map(|s| s.to_string()).collect(),
        code,
        first_line,
    }
}

#[test]
fn every_bad_input_gets_a_clear_first_line_and_a_documented_exit() {
    let app = build("tests/c/misbehave.c");
    let pingpong = build("examples/pingpong.c");
    let bw0 = two_hosts("bw0.xml", "0", "1Gf");
    let speed0 = two_hosts("speed0.xml", "1GBps", "0f");
    let hosts = write_scratch("ab.hosts", "a\nb\n");
    // Platforms with power states, named as smpirun's working directory
    // (the scratch directory) holds them.
    let platform = |name: &'static str, b: &str| {
        write_scratch(
            name,
            &format!(
                "<platform version=\"4.1\"><zone id=\"z\" routing=\"Full\">\n<host id=\"a\" \
                 speed=\"1Gf,2Gf\"><prop id=\"wattage_per_state\" value=\"1:2:3\"/></host>\n\
                 <host id=\"b\" speed=\"1Gf\"{b}/>\n<link id=\"l\" bandwidth=\"1GBps\"/>\n\
                 <route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></route></zone></platform>\n"
            ),
        );
        name
    };
    let (bad_pstate, watts) = (
        platform("bad_pstate.xml", " pstate=\"2\""),
        platform("watts.xml", ""),
    );
    let empty_hosts = write_scratch("empty.hosts", "");
    let (bw0, speed0, hosts, empty_hosts) = (
        bw0.to_str().unwrap(),
        speed0.to_str().unwrap(),
        hosts.to_str().unwrap(),
        empty_hosts.to_str().unwrap(),
    );
    let rows = [
        // Platforms.
        row(&["-platform", bw0, "-hostfile", hosts, "PP"], 1,
            "smpirun: "),
        row(&["-platform", speed0, "-hostfile", hosts, "PP"], 1,
            "smpirun: "),
        row(&["-platform", "flat:2:speed=0", "PP"], 1,
            "smpirun: platform 'flat:2:speed=0': compact platform: speed '0': expected a positive speed"),
        row(&["-platform", "flat:2:bw=0Gbps", "PP"], 1,
            "smpirun: platform 'flat:2:bw=0Gbps': compact platform: bw '0Gbps': expected a positive bandwidth"),
        row(&["-platform", "fat-tree:2;4,4;1,2", "PP"], 1,
            "smpirun: platform 'fat-tree:2;4,4;1,2': compact platform: shape '2;4,4;1,2': expected 4 parts separated by ';', not 3;"),
        row(&["-platform", "torus:4,0", "PP"], 1,
            "smpirun: platform 'torus:4,0': compact platform: shape '4,0': expected a positive whole number for a torus dimension, not '0';"),
        row(&["-platform", "nothere.xml", "PP"], 1,
            "smpirun: nothere.xml: cannot read the file: No such file or directory (os error 2)"),
        // Hostfiles.
        // Hostfiles, as SimGrid's smpirun reports them (an empty one ends
        // it with the 134 of an aborted assertion).
        row(&["-hostfile", empty_hosts, "-platform", "flat:2", "PP"], 134,
            "[0.000000] [root/CRITICAL] smpirun: the hostfile '"),
        row(&["-hostfile", "nothere.hosts", "PP"], 1,
            "[smpirun] ** error: the file 'nothere.hosts' does not exist. Aborting."),
        // Options.
        row(&["-np", "0", "PP"], 1, "smpirun: invalid value '0' for '--np <N>': not a positive number of ranks"),
        row(&["-platfrom", "x", "PP"], 1, "smpirun: unknown option '-platfrom' (did you mean '-platform'?)"),
        row(&["--cfg=smpi/host-speed:0", "-np", "2", "PP"], 1,
            "smpirun: option smpi/host-speed: '0' is not a positive speed, such as 1Gf"),
        row(&["--cfg=smpi/nonsense:1", "-np", "2", "PP"], 1, "smpirun: in a --cfg option: unknown option 'smpi/nonsense'"),
        row(&["-np", "20000000", "PP"], 1, "smpirun: -np 20000000: the built-in platform has at most 16777216 hosts"),
        row(&["-np", "2", "-trace", "-trace-file", "/nonexistent/x.trace", "PP"], 1,
            "smpirun: cannot write the trace /nonexistent/x.trace: No such file or directory (os error 2)"),
        row(&["-np", "2", "-trace", "--cfg=tracing/precision:70000", "PP"], 1,
            "smpirun: option tracing/precision: 70000 digits after the decimal point; at most 100"),
        row(&["-np", "2", "--cfg=smpi/bcast:SMP_binomal", "PP"], 1,
            "smpirun: option smpi/bcast: no algorithm 'SMP_binomal' (available: default,"),
        row(&["-np", "2", "--cfg=plugin:energy", "PP"], 1,
            "smpirun: option plugin: 'energy' is not one of SimGrid's plugins (host_energy,"),
        row(&["-np", "2", "--log=root.fmt:[%r]%Q", "PP"], 1,
            "smpirun: in a --log option: unknown sequence %Q in layout format '[%r]%Q'; known sequences:"),
        row(&["-np", "2", "--log=root.app:file:/nonexistent/x.log", "PP"], 1,
            "smpirun: cannot open the log file /nonexistent/x.log: No such file or directory (os error 2)"),
        row(&["-np", "2", "--log=smpi.thres:chatty", "PP"], 1,
            "smpirun: in a --log option: unknown log level 'chatty'; valid levels are: trace,"),
        // Energy and power states.
        row(&["-platform", bad_pstate, "-hostfile", hosts, "PP"], 1,
            "smpirun: bad_pstate.xml:3: host 'b': pstate '2' is not one of its power states: its speed lists 1"),
        row(&["-platform", watts, "-hostfile", hosts, "--cfg=plugin:host_energy", "PP"], 1,
            "smpirun: --cfg=plugin:host_energy: host 'a': wattage_per_state '1:2:3' lists 1 power states, but the host has 2"),
        // Programs.
        row(&["-np", "2", "./nothere"], 1, "smpirun: cannot read './nothere': No such file or directory (os error 2)"),
        row(&["-np", "2", "APP", "exit5"], 5,
            "[node-1:1:(2) 0.000000] [smpi_kernel/WARNING] SMPI process did not return 0. Return value : 5"),
        row(&["-np", "2", "APP", "nofinalize"], 0,
            "[node-0:0:(1) 0.000000] [smpi_kernel/WARNING] rank 0 ended without calling MPI_Finalize"),
        row(&["-np", "2", "APP", "divide"], 136,
            "smpirun: rank 1 crashed (arithmetic exception: integer division by zero, SIGFPE) at simulated time 0.000000 s"),
        row(&["-np", "2", "APP", "abort"], 134,
            "smpirun: rank 1 crashed (aborted: abort() was called, SIGABRT) at simulated time 0.000000 s"),
        row(&["-np", "2", "APP", "ill"], 132,
            "smpirun: rank 1 crashed (illegal instruction, SIGILL) at simulated time 0.000000 s"),
    ];
    let mut wrong = Vec::new();
    for r in &rows {
        let mut args = vec![NO_COMPUTE.to_string()];
        for a in &r.args {
            args.push(match a.as_str() {
                "APP" => app.to_string_lossy().into_owned(),
                "PP" => pingpong.to_string_lossy().into_owned(),
                _ => a.clone(),
            });
        }
        let o = with_env(Command::new(env!("CARGO_BIN_EXE_smpirun")))
            .current_dir(scratch())
            .args(&args)
            .output()
            .expect("run smpirun");
        let err = stderr(&o);
        let first = err.lines().next().unwrap_or("");
        // SimGrid's closing line of a failed simulation, on stdout.
        let closing = format!("Execution failed with code {}.\n", r.code);
        let simulated = r.code != 0 && r.code != 1;
        if o.status.code() != Some(r.code)
            || !first.starts_with(r.first_line)
            || (simulated && !stdout(&o).ends_with(&closing))
            || err.contains("panicked")
            || err.contains("RUST_BACKTRACE")
        {
            wrong.push(format!(
                "{:?}: exit {:?} (want {}), stderr:\n{err}",
                r.args,
                o.status.code(),
                r.code
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn zero_bandwidths_and_speeds_are_named_with_file_and_line() {
    let bw0 = two_hosts("bw0-line.xml", "0", "1Gf");
    let speed0 = two_hosts("speed0-line.xml", "1GBps", "0f");
    let pingpong = build("examples/pingpong.c");
    let hosts = write_scratch("ab-line.hosts", "a\nb\n");
    for (platform, want) in [
        (bw0, "bw0-line.xml:7: link 'l': bandwidth '0' is zero; a host or link must have a positive bandwidth"),
        (speed0, "speed0-line.xml:6: host 'b': speed '0f' is zero; a host or link must have a positive speed"),
    ] {
        let o = run(&[
            "-np",
            "2",
            "-platform",
            platform.to_str().unwrap(),
            "-hostfile",
            hosts.to_str().unwrap(),
            pingpong.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(1));
        assert!(stderr(&o).contains(want), "{}", stderr(&o));
    }
}
