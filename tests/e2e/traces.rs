//! Traces: SimGrid's time-independent traces (`-trace-ti`), byte for
//! byte as SimGrid 3.32 writes them, and its Paje traces (`-trace`), read
//! back with Debian's `pj_dump` (package pajeng, which scripts/pajeng.sh
//! installs when missing), and Perfetto timelines, decoded with Perfetto's
//! own schema (scripts/perfetto-venv.sh).

use std::path::Path;
use std::process::Command;

use crate::{build, run, scratch, simulated_time, stderr, tool, NO_COMPUTE};

/// What SimGrid 3.32 writes for rank 1 of tests/c/trace_pattern.c on 4
/// ranks (its `-trace-ti`, computation timing off), trailing spaces kept.
const RANK_1: &[&str] = &[
    "1 init",
    "1 irecv 0 7 100 0",
    "1 isend 2 7 100 0",
    "1 waitall 2",
    "1 recv 0 3 100 1",
    "1 sendRecv 50 2 50 0 0 0",
    "1 isend 0 9 10 2",
    "1 recv 2 9 10 2",
    "1 wait 1 0 9",
    "1 barrier",
    "1 bcast 100 0 0 ",
    "1 reduce 50 0 1 0 ",
    "1 allreduce 100 0 0 ",
    "1 allgather 20 20 1 1",
    "1 gather 30 30 0 1 1",
    "1 scatter 40 40 0 1 1",
    "1 alltoall 25 25 1 1",
    "1 alltoallv 14 2 3 4 5 14 2 3 4 5 1 1",
    "1 gatherv 2 0 0 0 0 0 1 1",
    "1 allgatherv 2 1 2 3 4 1 1",
    "1 scatterv 0 0 0 0 2 0 1 1",
    "1 reducescatter 1 2 3 4 0 0",
    "1 scan 7 0 0 ",
    "1 compute 2e+06",
    "1 irecv 0 7 100 0",
    "1 isend 2 7 100 0",
    "1 waitall 2",
    "1 recv 0 3 200 1",
    "1 sendRecv 50 2 50 0 0 0",
    "1 isend 0 9 10 2",
    "1 recv 2 9 10 2",
    "1 wait 1 0 9",
    "1 barrier",
    "1 bcast 100 1 0 ",
    "1 reduce 50 0 1 0 ",
    "1 allreduce 100 0 0 ",
    "1 allgather 20 20 1 1",
    "1 gather 30 30 0 1 1",
    "1 scatter 40 40 0 1 1",
    "1 alltoall 25 25 1 1",
    "1 alltoallv 14 2 3 4 5 14 2 3 4 5 1 1",
    "1 gatherv 2 0 0 0 0 0 1 1",
    "1 allgatherv 2 1 2 3 4 1 1",
    "1 scatterv 0 0 0 0 2 0 1 1",
    "1 reducescatter 1 2 3 4 0 0",
    "1 scan 7 0 0 ",
    "1 compute 2e+06",
    "1 finalize",
];

/// Runs tests/c/trace_pattern.c on 4 ranks with a TI trace indexed in
/// `dir/index.txt`.
fn trace_pattern(dir: &Path) -> std::process::Output {
    let app = build("tests/c/trace_pattern.c");
    std::fs::create_dir_all(dir).unwrap();
    let index = dir.join("index.txt");
    run(&[
        "-np",
        "4",
        NO_COMPUTE,
        "-trace-ti",
        "-trace-file",
        index.to_str().unwrap(),
        app.to_str().unwrap(),
    ])
}

#[test]
fn ti_traces_are_simgrids_lines_indexed_in_rank_order_and_deterministic() {
    let dir = scratch().join("ti-pattern");
    let o = trace_pattern(&dir);
    assert!(o.status.success(), "{}", stderr(&o));
    let index = std::fs::read_to_string(dir.join("index.txt")).unwrap();
    let files: Vec<&str> = index.lines().collect();
    let want: Vec<String> = (0..4)
        .map(|r| format!("{}/index.txt_files/rank-{r}.txt", dir.display()))
        .collect();
    assert_eq!(files, want);
    let rank1 = std::fs::read_to_string(files[1]).unwrap();
    assert_eq!(rank1.lines().collect::<Vec<_>>(), RANK_1);
    assert!(rank1.ends_with("finalize\n"));
    // Every rank's lines start with its rank.
    for (r, f) in files.iter().enumerate() {
        let text = std::fs::read_to_string(f).unwrap();
        assert!(
            text.lines().all(|l| l.starts_with(&format!("{r} "))),
            "{text}"
        );
    }
    // The same run writes the same bytes.
    let again = scratch().join("ti-pattern-again");
    assert!(trace_pattern(&again).status.success());
    for r in 0..4 {
        let name = format!("index.txt_files/rank-{r}.txt");
        assert_eq!(
            std::fs::read(dir.join(&name)).unwrap(),
            std::fs::read(again.join(&name)).unwrap()
        );
    }
}

/// Runs smpirun with `args` and the settings every replay test shares
/// (deterministic host speed, the final summary line).
fn timed(args: &[&str]) -> std::process::Output {
    let mut all = vec!["--cfg=smpi/host-speed:1Gf", "--cfg=smpi/display-timing:yes"];
    all.extend_from_slice(args);
    run(&all)
}

/// MPI_Testall, MPI_Testany and MPI_Testsome are traced as SimGrid traces
/// them: a TI line of the name alone per call (which our replay accepts),
/// a Paje state per call.
#[test]
fn array_tests_are_traced_as_simgrid_traces_them() {
    let dir = scratch().join("ti-polls");
    std::fs::create_dir_all(&dir).unwrap();
    let index = dir.join("index.txt");
    let app = build("tests/c/trace_polls.c");
    let o = run(&[
        "-np",
        "2",
        NO_COMPUTE,
        "-trace-ti",
        "-trace-file",
        index.to_str().unwrap(),
        app.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    for r in 0..2 {
        let text =
            std::fs::read_to_string(dir.join(format!("index.txt_files/rank-{r}.txt"))).unwrap();
        let mut kinds: Vec<&str> = text.lines().collect();
        kinds.dedup();
        let p = 1 - r;
        let want: Vec<String> = [
            "init".to_string(),
            format!("irecv {p} 1 1 1"),
            format!("isend {p} 1 1 1"),
            "testall".into(),
            format!("irecv {p} 2 1 1"),
            format!("send {p} 2 1 1"),
            "testany".into(),
            format!("irecv {p} 3 1 1"),
            format!("send {p} 3 1 1"),
            "testsome".into(),
            "finalize".into(),
        ]
        .iter()
        .map(|l| format!("{r} {l}"))
        .collect();
        assert_eq!(kinds, want, "rank {r}'s trace:\n{text}");
    }
    let replay = run(&["-np", "2", "-replay", index.to_str().unwrap()]);
    assert!(replay.status.success(), "{}", stderr(&replay));
    let file = dir.join("polls.trace");
    let o = run(&[
        "-np",
        "2",
        NO_COMPUTE,
        "-trace",
        "-trace-file",
        file.to_str().unwrap(),
        app.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&file).unwrap();
    for state in ["PMPI_Testall", "PMPI_Testany", "PMPI_Testsome"] {
        assert!(
            text.contains(&format!(" {state} \"0.52 0.52 0\"\n")),
            "{state}: {text}"
        );
    }
}

/// With `tracing/smpi/sleeping`, the program's sleeps are `sleeping`
/// states in Paje (defined at MPI_Init, after `computing`, as SimGrid
/// does) and `sleep` lines in TI, which the replay sleeps.
#[test]
fn sleeps_are_traced_when_asked() {
    let dir = scratch().join("trace-sleep");
    std::fs::create_dir_all(&dir).unwrap();
    let app = build("tests/c/trace_sleep.c");
    let file = dir.join("sleep.trace");
    let o = run(&[
        "-np",
        "3",
        NO_COMPUTE,
        "--cfg=tracing/smpi/sleeping:yes",
        "-trace",
        "-trace-file",
        file.to_str().unwrap(),
        app.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("tracing/"), "{}", stderr(&o));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("5 7 2 sleeping \"0 0.5 0.5\"\n"), "{text}");
    let out = pj_dump(&file);
    for r in 0..3 {
        let sleeps: Vec<f64> = out
            .lines()
            .filter(|l| {
                l.starts_with(&format!("State, rank-{r}, MPI_STATE, ")) && l.ends_with(", sleeping")
            })
            .filter_map(|l| l.split(", ").nth(5)?.parse().ok())
            .collect();
        assert_eq!(sleeps, [f64::from(r), 0.25], "rank {r}'s sleeps:\n{out}");
    }
    let index = dir.join("index.txt");
    let o = run(&[
        "-np",
        "3",
        NO_COMPUTE,
        "--cfg=tracing/smpi/sleeping:yes",
        "-trace-ti",
        "-trace-file",
        index.to_str().unwrap(),
        app.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rank2 = std::fs::read_to_string(dir.join("index.txt_files/rank-2.txt")).unwrap();
    assert!(rank2.contains("2 sleep 2\n2 sleep 0.25\n"), "{rank2}");
    let replay = run(&["-np", "3", "-replay", index.to_str().unwrap()]);
    assert!(replay.status.success(), "{}", stderr(&replay));
    assert!(simulated_time(&replay) >= 2.25, "{}", stderr(&replay));
}

/// `-trace-comment-file` puts each line of its file as a comment at the
/// top of the Paje trace, after `-trace-comment`'s; a file that cannot be
/// read stops the run before it starts, naming the file.
#[test]
fn a_comment_file_tops_the_paje_trace() {
    let dir = scratch().join("trace-comments");
    std::fs::create_dir_all(&dir).unwrap();
    let comments = dir.join("comments.txt");
    std::fs::write(&comments, "run 42\nmachine: a laptop\n").unwrap();
    let file = dir.join("c.trace");
    let app = build("tests/c/trace_sleep.c");
    let run_with = |comment_file: &Path| {
        run(&[
            "-np",
            "2",
            NO_COMPUTE,
            "-trace",
            "-trace-comment",
            "one line",
            "-trace-comment-file",
            comment_file.to_str().unwrap(),
            "-trace-file",
            file.to_str().unwrap(),
            app.to_str().unwrap(),
        ])
    };
    let o = run_with(&comments);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("tracing/"), "{}", stderr(&o));
    let text = std::fs::read_to_string(&file).unwrap();
    let top: Vec<&str> = text.lines().skip(2).take(4).collect();
    assert_eq!(
        top,
        [
            "# one line",
            "# run 42",
            "# machine: a laptop",
            "%EventDef PajeDefineContainerType 0"
        ]
    );
    pj_dump(&file);
    let missing = dir.join("missing.txt");
    let o = run_with(&missing);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains(&format!(
            "the comment file {} cannot be read",
            missing.display()
        )),
        "{}",
        stderr(&o)
    );
}

#[test]
fn replay_predicts_the_online_run_and_follows_the_model() {
    let dir = scratch().join("ti-replay");
    std::fs::create_dir_all(&dir).unwrap();
    let index = dir.join("index.txt");
    let index = index.to_str().unwrap();
    let app = build("tests/c/trace_pattern.c");
    let online = timed(&[
        "-np",
        "4",
        NO_COMPUTE,
        "-trace-ti",
        "-trace-file",
        index,
        app.to_str().unwrap(),
    ]);
    assert!(online.status.success(), "{}", stderr(&online));
    // The explicit computations of the trace run (they ran online too).
    let replay = timed(&["-np", "4", "-replay", index]);
    assert!(replay.status.success(), "{}", stderr(&replay));
    let (t_online, t_replay) = (simulated_time(&online), simulated_time(&replay));
    assert!(
        (t_replay - t_online).abs() <= 0.01 * t_online,
        "online {t_online}, replay {t_replay}"
    );
    assert!(
        stderr(&replay).contains(&format!("[smpi_replay/INFO] Simulation time {t_replay:.6}")),
        "{}",
        stderr(&replay)
    );
    // Replays are deterministic, and a trace taken once replays on
    // another model.
    let again = timed(&["-np", "4", "-replay", index]);
    assert_eq!(simulated_time(&again), t_replay);
    let slow = timed(&[
        "-np",
        "4",
        "--cfg=network/latency-factor:0:100",
        "-replay",
        index,
    ]);
    assert!(simulated_time(&slow) > 2.0 * t_replay, "{}", stderr(&slow));
    // Without computations, the trace's compute lines are skipped.
    let bare = timed(&["-np", "4", NO_COMPUTE, "-replay", index]);
    assert!(simulated_time(&bare) < t_replay);
}

#[test]
fn replay_names_the_line_it_cannot_replay_and_a_short_index() {
    let dir = scratch().join("ti-bad");
    std::fs::create_dir_all(&dir).unwrap();
    let rank0 = dir.join("r0.txt");
    std::fs::write(&rank0, "0 init\n0 waitAny 2\n0 finalize\n").unwrap();
    let index = dir.join("index.txt");
    std::fs::write(&index, format!("{}\n", rank0.display())).unwrap();
    let o = run(&["-np", "1", "-replay", index.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!(
            "smpirun: {}:2: rank 0: cannot replay '0 waitAny 2': 'waitAny' is not an action \
             SimGrid 3.32 replays",
            rank0.display()
        )),
        "{}",
        stderr(&o)
    );
    let o = run(&["-np", "3", "-replay", index.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("lists one file for 3 ranks"),
        "{}",
        stderr(&o)
    );
    let two = dir.join("two.txt");
    std::fs::write(&two, format!("{0}\n{0}\n", rank0.display())).unwrap();
    let o = run(&["-np", "3", "-replay", two.to_str().unwrap()]);
    assert!(
        stderr(&o).contains("lists 2 file(s), one per rank, and 3 ranks are asked for"),
        "{}",
        stderr(&o)
    );
}

/// The python of the environment with Perfetto's schema.
fn perfetto_python() -> String {
    tool("scripts/perfetto-venv.sh")
}

#[test]
fn perfetto_traces_decode_with_perfettos_schema_one_slice_per_call() {
    let dir = scratch().join("perfetto");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("pattern.pftrace");
    let app = build("tests/c/trace_pattern.c");
    let o = run(&[
        "-np",
        "4",
        NO_COMPUTE,
        "--cfg=tracing:yes",
        "--cfg=tracing/smpi:yes",
        "--cfg=tracing/smpi/format:perfetto",
        &format!("--cfg=tracing/filename:{}", file.display()),
        "--cfg=smpi/allreduce:rdb",
        app.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let decoded = std::process::Command::new(perfetto_python())
        .arg(crate::repo().join("scripts/perfetto-check.py"))
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        decoded.status.success(),
        "{}",
        String::from_utf8_lossy(&decoded.stderr)
    );
    let text = String::from_utf8(decoded.stdout).unwrap();
    let value = |key: &str| -> i64 {
        text.lines()
            .find_map(|l| l.strip_prefix(key)?.strip_prefix(' ')?.parse().ok())
            .unwrap_or_else(|| panic!("no {key} in:\n{text}"))
    };
    assert_eq!(value("tracks"), 4);
    assert_eq!(value("unresolved"), 0);
    // Every rank: MPI_Init, Comm_rank, Comm_size, 22 calls in each of 2
    // iterations, its 2 computations, MPI_Finalize; all ended.
    for rank in 0..4 {
        assert_eq!(value(&format!("slices {rank}")), 50, "{text}");
        assert_eq!(value(&format!("unended {rank}")), 0, "{text}");
    }
    assert_eq!(value("name MPI_Allreduce"), 8);
    assert_eq!(value("name compute"), 8);
    // The calls SimGrid traces name their communicator: all of them but
    // MPI_Comm_rank and MPI_Comm_size, per rank, and the computations.
    assert_eq!(value("communicators"), 4 * (50 - 2 - 2), "{text}");
    // Every collective's slice ends naming the algorithm it ran: the one
    // asked for, or the one the selector chose.
    assert_eq!(value("algorithm MPI_Allreduce:allreduce_rdb"), 8, "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("algorithm MPI_Bcast:bcast_")
                || l.starts_with("algorithm MPI_Barrier:barrier_")),
        "{text}"
    );
    // An arrow per message, each iteration: every rank's ring isend and
    // tag-9 isend and sendrecv, and half of them a tag-3 send.
    assert_eq!(value("flows"), 2 * 4 * 3 + 2 * 2, "{text}");
    // The links' loads: the 4 hosts' links both ways, and the backbone.
    assert_eq!(value("counter_tracks"), 2 * 4 + 1, "{text}");
    assert!(value("counters") > 100, "{text}");
    let max: f64 = text
        .lines()
        .find_map(|l| l.strip_prefix("counter_max ")?.parse().ok())
        .unwrap();
    assert!(max > 0.5 && max <= 1.0 + 1e-9, "{text}");
    // The same run writes the same bytes.
    let first = std::fs::read(&file).unwrap();
    assert!(run(&[
        "-np",
        "4",
        NO_COMPUTE,
        "--cfg=tracing:yes",
        "--cfg=tracing/smpi:yes",
        "--cfg=tracing/smpi/format:perfetto",
        &format!("--cfg=tracing/filename:{}", file.display()),
        "--cfg=smpi/allreduce:rdb",
        app.to_str().unwrap(),
    ])
    .status
    .success());
    assert_eq!(std::fs::read(&file).unwrap(), first);
}

/// The rows of a CSV file, split on commas (our files quote nothing here).
fn csv_rows(path: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

#[test]
fn network_stats_show_idle_and_congested_links_and_slowdowns() {
    let dir = scratch().join("netstats");
    std::fs::create_dir_all(&dir).unwrap();
    // Two ranks, one message at a time: nothing waits for anything.
    let pp = build("examples/pingpong.c");
    let alone = dir.join("pingpong.csv");
    let o = run(&[
        "-np",
        "2",
        NO_COMPUTE,
        &format!("--cfg=smpi/network-stats:{}", alone.display()),
        pp.to_str().unwrap(),
        "65536",
        "2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let links = csv_rows(&alone);
    let link = |name: &str, dir: &str| {
        links
            .iter()
            .find(|r| r[0] == name && r[1] == dir)
            .unwrap_or_else(|| panic!("no {name} {dir} in {links:?}"))
            .clone()
    };
    // Rank 0's messages leave by its link's up half, rank 1's arrive by
    // the down half of its own: the same bytes, one flow at a time.
    let (out0, in1) = (link("default_link_0", "up"), link("default_link_1", "down"));
    assert_eq!(out0[3], in1[3]);
    assert!(out0[3].parse::<u64>().unwrap() > 2 * 65536);
    assert_eq!(out0[5], "1", "peak concurrent flows");
    let histogram = csv_rows(&dir.join("pingpong.slowdown.csv"));
    assert!(!histogram.is_empty());
    assert!(
        histogram.iter().all(|r| r[1] == "1" && r[4] == "1.000000"),
        "alone, no message is slowed: {histogram:?}"
    );
    // Sixteen ranks on a fat tree of 1 Gb/s links: collectives contend.
    let app = build("tests/c/trace_pattern.c");
    let busy = dir.join("pattern.csv");
    let o = run(&[
        "-np",
        "16",
        NO_COMPUTE,
        "-platform",
        "fat-tree:2;4,4;1,2;1,1:bw=1Gbps",
        &format!("--cfg=smpi/network-stats:{}", busy.display()),
        app.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let links = csv_rows(&busy);
    assert!(links.iter().any(|r| r[5].parse::<u32>().unwrap() >= 8));
    let histogram = csv_rows(&dir.join("pattern.slowdown.csv"));
    let slowed: u64 = histogram
        .iter()
        .filter(|r| r[1].parse::<f64>().unwrap() >= 1.5)
        .map(|r| r[3].parse::<u64>().unwrap())
        .sum();
    assert!(slowed > 100, "{histogram:?}");
    for class in ["<1KiB", "1KiB-64KiB"] {
        let share: f64 = histogram
            .iter()
            .filter(|r| r[0] == class)
            .map(|r| r[4].parse::<f64>().unwrap())
            .sum();
        assert!((share - 1.0).abs() < 1e-5, "{class}: {share}");
    }
}

/// Runs tests/c/trace_pattern.c on 4 ranks with a Paje trace in `file`.
fn paje_pattern(file: &Path) -> std::process::Output {
    let app = build("tests/c/trace_pattern.c");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    run(&[
        "-np",
        "4",
        NO_COMPUTE,
        "-trace",
        "-trace-file",
        file.to_str().unwrap(),
        app.to_str().unwrap(),
    ])
}

/// The states every rank of tests/c/trace_pattern.c goes through.
const PATTERN_STATES: &[&str] = &[
    "PMPI_Init",
    "PMPI_Irecv",
    "PMPI_Isend",
    "PMPI_Waitall",
    "PMPI_Sendrecv",
    "PMPI_Wait",
    "PMPI_Barrier",
    "PMPI_Bcast",
    "PMPI_Reduce",
    "PMPI_Allreduce",
    "PMPI_Allgather",
    "PMPI_Gather",
    "PMPI_Scatter",
    "PMPI_Alltoall",
    "PMPI_Alltoallv",
    "PMPI_Gatherv",
    "PMPI_Allgatherv",
    "PMPI_Scatterv",
    "PMPI_Reduce_scatter",
    "PMPI_Scan",
    "PMPI_Finalize",
];

/// What `pj_dump` reads of the Paje trace `file`, which it must read
/// without error.
fn pj_dump(file: &Path) -> String {
    let dump = Command::new(tool("scripts/pajeng.sh"))
        .arg(file)
        .output()
        .expect("run pj_dump");
    let out = String::from_utf8_lossy(&dump.stdout).into_owned();
    assert!(
        dump.status.success(),
        "pj_dump failed: {}\n{out}",
        String::from_utf8_lossy(&dump.stderr)
    );
    out
}

#[test]
fn paje_traces_read_back_with_pj_dump_and_are_deterministic() {
    let file = scratch().join("paje-pattern").join("pattern.trace");
    let o = paje_pattern(&file);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.starts_with("#This file was generated using SimGrid-3.32.0\n#[smpirun "));
    assert!(text.contains("\n0 1 0 MPI\n2 2 1 MPI_STATE\n4 3 0 1 1 MPI_LINK\n"));
    let out = pj_dump(&file);
    for r in 0..4 {
        let rank = format!("rank-{r}");
        assert!(
            out.lines()
                .any(|l| l.starts_with("Container, 0, MPI, ") && l.ends_with(&rank)),
            "{rank}'s container is missing:\n{out}"
        );
        let states: Vec<&str> = out
            .lines()
            .filter(|l| l.starts_with(&format!("State, {rank}, MPI_STATE, ")))
            .filter_map(|l| l.rsplit(", ").next())
            .collect();
        // Even ranks send the tag-3 message, odd ranks receive it.
        let p2p = if r % 2 == 0 { "PMPI_Send" } else { "PMPI_Recv" };
        for want in PATTERN_STATES.iter().chain([&p2p]) {
            assert!(states.contains(want), "{rank} has no {want}: {states:?}");
        }
    }
    // Every message of the program is a link, from its send to its
    // receive (pj_dump fails on a link that does not end): per iteration
    // and rank, the ring's two messages and the send-receive's, and the
    // even ranks' send.
    let links = out
        .lines()
        .filter(|l| l.starts_with("Link, 0, MPI_LINK, "))
        .count();
    assert_eq!(links, 2 * (4 * 3 + 2), "{out}");
    // The same run writes the same bytes.
    assert!(paje_pattern(&file).status.success());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
}

/// `-trace-grouped` puts every rank's container in its host's, and
/// `-trace-resource` draws the hosts' speed and the links' bandwidth, and
/// the use of both over time; `pj_dump` reads the trace, and the switches say nothing.
#[test]
fn grouped_and_resource_paje_traces_draw_the_machine() {
    let file = scratch().join("paje-machine").join("machine.trace");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let app = build("tests/c/trace_pattern.c");
    let o = run(&[
        "-np",
        "4",
        NO_COMPUTE,
        "-trace",
        "-trace-grouped",
        "-trace-resource",
        "-trace-file",
        file.to_str().unwrap(),
        app.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        !stderr(&o).contains("tracing/"),
        "the switches take effect without a word: {}",
        stderr(&o)
    );
    let out = pj_dump(&file);
    // Container, <parent>, <type>, <start>, <end>, <duration>, <name>
    let containers: Vec<Vec<&str>> = out
        .lines()
        .filter(|l| l.starts_with("Container, "))
        .map(|l| l.split(", ").collect())
        .collect();
    let of_type =
        |t: &str| -> Vec<&Vec<&str>> { containers.iter().filter(|c| c[2] == t).collect() };
    let hosts: Vec<&str> = of_type("HOST").iter().map(|c| c[6]).collect();
    assert!(hosts.len() >= 4, "{out}");
    let ranks = of_type("MPI");
    assert_eq!(ranks.len(), 4, "{out}");
    for rank in ranks {
        assert!(
            hosts.contains(&rank[1]),
            "{} is not in a host: {rank:?}",
            rank[6]
        );
        let states = out
            .lines()
            .filter(|l| l.starts_with(&format!("State, {}, MPI_STATE, ", rank[6])))
            .count();
        assert!(
            states >= PATTERN_STATES.len(),
            "{} has {states} states",
            rank[6]
        );
    }
    assert!(!of_type("LINK").is_empty(), "{out}");
    let variable = |name: &str| -> Vec<f64> {
        out.lines()
            .filter(|l| l.starts_with("Variable, ") && l.split(", ").nth(2) == Some(name))
            .filter_map(|l| l.rsplit(", ").next()?.parse().ok())
            .collect()
    };
    assert!(variable("speed").iter().all(|&s| s > 0.0) && !variable("speed").is_empty());
    assert!(!variable("core_count").is_empty() && !variable("bandwidth").is_empty());
    let used = variable("bandwidth_used");
    assert!(
        used.iter().any(|&u| u > 0.0),
        "messages use the links: {used:?}"
    );
    assert!(used.iter().all(|&u| u >= 0.0), "{used:?}");
    let computing = variable("speed_used");
    assert!(
        computing.iter().any(|&u| u > 0.0),
        "smpi_execute_flops uses the hosts: {computing:?}"
    );
    // Categories are not drawn: said when the program declared one.
    let app = build("tests/c/trace_category.c");
    let o = run(&[
        "-np",
        "2",
        NO_COMPUTE,
        "-trace",
        "-trace-resource",
        "-trace-file",
        file.to_str().unwrap(),
        app.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("tracing/categorized: the Paje trace does not draw the resources' use per category (the program declared phase1)"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn call_locations_name_each_states_file_and_line_in_paje_and_ti() {
    let app = crate::build_as(
        "tests/c/call_location.c",
        "call_location",
        &["-trace-call-location"],
    );
    let send = crate::line_in("tests/c/call_location.c", "the send");
    let barrier = crate::line_in("tests/c/call_location.c", "the barrier");
    let dir = scratch().join("call-location");
    std::fs::create_dir_all(&dir).unwrap();
    let paje = dir.join("loc.trace");
    let o = run(&[
        "-np",
        "2",
        NO_COMPUTE,
        "--cfg=smpi/trace-call-location:yes",
        "-trace",
        "-trace-file",
        paje.to_str().unwrap(),
        app.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&paje).unwrap();
    assert!(
        text.contains("%       Value string\n%       Fname string\n%       Lnumber int\n"),
        "{text}"
    );
    // Rank 0 (container 2) pushes its send at the send's line.
    let pushes: Vec<&str> = text.lines().filter(|l| l.starts_with("12 ")).collect();
    assert!(
        pushes
            .iter()
            .any(|l| l.ends_with(&format!(" \"call_location.c\" {send}"))),
        "{pushes:?}"
    );
    pj_dump(&paje);
    let ti = dir.join("loc-ti.txt");
    let o = run(&[
        "-np",
        "2",
        NO_COMPUTE,
        "--cfg=smpi/trace-call-location:yes",
        "-trace-ti",
        "-trace-file",
        ti.to_str().unwrap(),
        app.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rank0 = std::fs::read_to_string(dir.join("loc-ti.txt_files/rank-0.txt")).unwrap();
    assert!(
        rank0.contains(&format!(
            "0 location call_location.c {send}\n0 send 1 0 1 1\n0 location call_location.c \
             {barrier}\n0 barrier\n"
        )),
        "{rank0}"
    );
    // Our replay reads the location lines.
    let o = run(&["-np", "2", "-replay", ti.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
}
