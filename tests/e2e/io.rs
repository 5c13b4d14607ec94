//! MPI-IO: real data through real files, time from the platform's disks.

use crate::{build, run, scratch, stderr, stdout, write_scratch, NO_COMPUTE};

/// Four hosts on one link, each with a disk of 100 MBps both ways.
fn disks_platform() -> String {
    let hosts: String = (0..4)
        .map(|i| {
            format!(
                "<host id=\"n{i}\" speed=\"1Gf\"><disk id=\"d\" read_bw=\"100MBps\" \
                 write_bw=\"100MBps\"><prop id=\"size\" value=\"1TiB\"/></disk></host>\n"
            )
        })
        .collect();
    let routes: String = (0..4)
        .flat_map(|i| (i + 1..4).map(move |j| (i, j)))
        .map(|(i, j)| format!("<route src=\"n{i}\" dst=\"n{j}\"><link_ctn id=\"l\"/></route>\n"))
        .collect();
    let xml = format!(
        "<?xml version='1.0'?>\n<platform version=\"4.1\"><zone id=\"z\" routing=\"Full\">\n\
         {hosts}<link id=\"l\" bandwidth=\"1.25GBps\" latency=\"1us\"/>\n{routes}</zone></platform>\n"
    );
    write_scratch("io_disks.xml", &xml)
        .to_string_lossy()
        .into_owned()
}

/// The seconds on the line of `out` that starts with `label`.
fn seconds(out: &str, label: &str) -> f64 {
    out.lines()
        .find_map(|l| l.strip_prefix(label))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no '{label}' in:\n{out}"))
}

/// Runs tests/c/mpi_io.c on `np` ranks with `platform` (if any); its
/// output and the data file's path.
fn mpi_io(np: &str, platform: Option<&str>, tail: &[&str]) -> std::process::Output {
    let app = build("tests/c/mpi_io.c");
    let data = scratch().join(format!("mpi_io_{np}_{}.dat", platform.is_some()));
    let mut args = vec!["-np", np, NO_COMPUTE, "--log=smpi_mpi.thres:error"];
    if let Some(p) = platform {
        args.extend(["-platform", p]);
    }
    args.push(app.to_str().unwrap());
    args.push(data.to_str().unwrap());
    args.extend_from_slice(tail);
    run(&args)
}

#[test]
fn collective_writes_read_back_right_and_take_the_disks_time() {
    let platform = disks_platform();
    // 4 ranks: one per host, 256 KiB each on a disk of its own.
    let o = mpi_io("4", Some(&platform), &[]);
    let out = stdout(&o);
    assert!(
        o.status.success() && out.contains(" No Errors"),
        "{out}{}",
        stderr(&o)
    );
    let t4 = seconds(&out, "write_time");
    let disk = 262_144.0 / 100e6;
    assert!(
        t4 >= disk && t4 < disk * 1.2,
        "4 ranks wrote 256 KiB each in {t4} s"
    );
    // 8 ranks on 4 hosts: two ranks' data goes to each disk.
    let o = mpi_io("8", Some(&platform), &[]);
    let out = stdout(&o);
    assert!(
        o.status.success() && out.contains(" No Errors"),
        "{out}{}",
        stderr(&o)
    );
    let t8 = seconds(&out, "write_time");
    assert!(t8 >= 2.0 * disk, "8 ranks on 4 disks wrote in {t8} s");
    // 16 ranks, more than the hosts: the checks hold too.
    let o = mpi_io("16", Some(&platform), &["4096"]);
    assert!(
        o.status.success() && stdout(&o).contains(" No Errors"),
        "{}{}",
        stdout(&o),
        stderr(&o)
    );
}

#[test]
fn io_without_disks_costs_nothing_and_says_so() {
    let o = mpi_io("4", None, &["1024"]);
    let out = stdout(&o);
    assert!(
        o.status.success() && out.contains(" No Errors"),
        "{out}{}",
        stderr(&o)
    );
    // Only the collective's messages take time.
    assert!(seconds(&out, "write_time") < 1e-4, "{out}");
    let err = stderr(&o);
    assert!(
        err.contains("ran on hosts without a <disk> in the platform and cost no simulated time"),
        "{err}"
    );
}

#[test]
fn a_fatal_file_error_names_the_rank_the_call_and_the_file() {
    let o = mpi_io("2", None, &["fatal"]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("rank 0: MPI_File_open: cannot open file '")
            && err.contains(".missing/none'")
            && err.contains("[MPI_ERR_NO_SUCH_FILE]")
            && err.contains("MPI_ERRORS_ARE_FATAL"),
        "{err}"
    );
    assert!(!stdout(&o).contains("not reached"), "{}", stdout(&o));
}

#[test]
fn the_checkpoint_lab_shows_aggregators_and_disk_bandwidth_at_work() {
    let app = build("examples/labs/checkpoint_io.c");
    let lab = crate::repo().join("examples/labs/disk_cluster.xml");
    let fast = write_scratch(
        "disk_cluster_fast.xml",
        &std::fs::read_to_string(&lab)
            .unwrap()
            .replace("write_bw=\"200MBps\"", "write_bw=\"400MBps\""),
    );
    let time = |platform: &std::path::Path, args: &[&str]| {
        let path = scratch().join(format!("ckpt_{}.dat", args.join("_")));
        let mut all = vec![
            "-np",
            "32",
            "-platform",
            platform.to_str().unwrap(),
            NO_COMPUTE,
            app.to_str().unwrap(),
            path.to_str().unwrap(),
        ];
        all.extend_from_slice(args);
        let o = run(&all);
        let out = stdout(&o);
        assert!(
            o.status.success() && !out.contains("WRONG"),
            "{args:?}: {out}{}",
            stderr(&o)
        );
        seconds(&out, "write_time")
    };
    let one = time(&lab, &["1", "1"]);
    let eight = time(&lab, &["1", "8"]);
    let default = time(&lab, &["1", "0"]);
    let faster_disks = time(&fast, &["1", "8"]);
    // One aggregator writes all 32 MiB on one disk of 200 MBps.
    assert!(one >= 32.0 * 1048576.0 / 200e6, "one aggregator: {one} s");
    assert!(
        one > 5.0 * eight,
        "1 aggregator {one} s, 8 aggregators {eight} s"
    );
    assert_eq!(default, eight, "ROMIO's default is one aggregator per node");
    assert!(
        faster_disks < 0.75 * eight,
        "disks twice as fast: {faster_disks} s vs {eight} s"
    );
}

#[test]
fn simulated_mount_points_and_remote_disks_work_as_in_simgrid_platforms() {
    // SimGrid's platforms mount disks at paths this machine lacks, and
    // give diskless hosts a remote disk (`remote_disk`, MOUNT:DISK:HOST).
    let mount = "/smpi-rs-simulated-scratch";
    assert!(!std::path::Path::new(mount).exists());
    let xml = format!(
        "<?xml version='1.0'?>\n<platform version=\"4.1\"><zone id=\"z\" routing=\"Full\">\n\
         <host id=\"bob\" speed=\"1Gf\"><disk id=\"Disk1\" read_bw=\"100MBps\" write_bw=\"40MBps\">\
         <prop id=\"mount\" value=\"{mount}\"/></disk></host>\n\
         <host id=\"carl\" speed=\"1Gf\"><prop id=\"remote_disk\" value=\"{mount}:Disk1:bob\"/></host>\n\
         <link id=\"l\" bandwidth=\"125MBps\" latency=\"150us\"/>\n\
         <route src=\"bob\" dst=\"carl\"><link_ctn id=\"l\"/></route></zone></platform>\n"
    );
    let platform = write_scratch("io_remote.xml", &xml);
    let app = build("tests/c/mpi_io.c");
    let keep = scratch().join("io_dir");
    let _ = std::fs::remove_dir_all(&keep);
    let io_dir = format!("--cfg=smpi/io-dir:{}", keep.display());
    let data = format!("{mount}/mpi_io.dat");
    let o = run(&[
        "-np",
        "2",
        "-platform",
        platform.to_str().unwrap(),
        NO_COMPUTE,
        "--log=smpi_mpi.thres:error",
        &io_dir,
        app.to_str().unwrap(),
        &data,
    ]);
    let out = stdout(&o);
    assert!(
        o.status.success() && out.contains(" No Errors"),
        "{out}{}",
        stderr(&o)
    );
    // Both ranks' 256 KiB go to bob's disk at 40 MBps.
    let t = seconds(&out, "write_time");
    assert!(t >= 2.0 * 262_144.0 / 40e6, "{t} s");
    assert!(!std::path::Path::new(mount).exists());
    assert!(
        keep.join(&mount[1..]).is_dir(),
        "nothing kept in {}",
        keep.display()
    );
    assert!(!stderr(&o).contains("without a <disk>"), "{}", stderr(&o));
}

#[test]
fn smpi_io_verbose_lines_narrate_pointer_moves_and_accesses() {
    let app = build("tests/c/mpi_io.c");
    let data = scratch().join("mpi_io_log.dat");
    let o = run(&[
        "-np",
        "2",
        NO_COMPUTE,
        "--log=smpi_mpi.thres:error",
        "--log=smpi_io.thres:verbose",
        app.to_str().unwrap(),
        data.to_str().unwrap(),
        "16",
    ]);
    let err = stderr(&o);
    let path = data.display();
    for line in [
        format!("] [smpi_io/VERBOSE] Write in MPI_File {path}, 64 bytes written, count 16, writesize 64 bytes, movesize 64"),
        format!("] [smpi_io/VERBOSE] Position after write in MPI_File {path} : 128"),
        format!("] [smpi_io/VERBOSE] Seeking in MPI_File {path}, setting offset 4"),
    ] {
        assert!(err.contains(&line), "no '{line}' in:\n{err}");
    }
}

#[test]
fn a_disk_refuses_a_file_larger_than_its_size() {
    let xml = std::fs::read_to_string(disks_platform())
        .unwrap()
        .replace("value=\"1TiB\"", "value=\"1KiB\"");
    let platform = write_scratch("io_small_disks.xml", &xml);
    let o = mpi_io("2", Some(platform.to_str().unwrap()), &["nospace"]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("nospace ok"),
        "{}{}",
        stdout(&o),
        stderr(&o)
    );
}
