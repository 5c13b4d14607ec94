//! The IB network model (`--cfg=network/model:IB`) against SimGrid 3.32,
//! with tests/c/ib_contention.c: incast, outcast, mixed, small and
//! staggered messages on five hosts, whose dates depend on the IB
//! penalties (under the SMPI model, the first incast's last message
//! arrives at 0.034605406717 on the fat tree, not 0.072213905881).

use std::collections::BTreeMap;

use crate::{build, run, stderr, stdout, write_scratch, NO_COMPUTE};

/// A two-level fat tree of 16 hosts, 4 per leaf switch (SimGrid's
/// examples/platforms/cluster_fat_tree.xml): hosts node-0 to node-3 share
/// a switch, node-4 is on the next one.
const FAT_TREE: &str = r#"<?xml version="1.0"?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="world" routing="Full">
    <cluster id="ft" prefix="node-" radical="0-15" suffix=".simgrid.org"
             speed="1Gf" bw="125MBps" lat="50us" topology="FAT_TREE"
             topo_parameters="2;4,4;1,2;1,2" loopback_bw="100MBps" loopback_lat="0"/>
  </zone>
</platform>
"#;

/// A flat cluster: a private link per host and a backbone.
const FLAT: &str = r#"<?xml version="1.0"?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="world" routing="Full">
    <cluster id="flat" prefix="n" radical="0-63" suffix="" speed="1Gf"
             bw="1.25GBps" lat="10us" bb_bw="2.5GBps" bb_lat="5us"/>
  </zone>
</platform>
"#;

/// SimGrid 3.32's output of tests/c/ib_contention.c (`phase rank peer
/// date`) on FAT_TREE:
///   smpirun -np 5 -platform fat_tree.xml -hostfile <node-0..node-4>
///     --cfg=network/model:IB --cfg=smpi/simulate-computation:no ./ib_contention
const SIMGRID_FAT_TREE: &str = "
1 0 3 0.009770241190
1 3 0 0.009770241190
1 0 2 0.018375597150
1 2 0 0.018375597150
1 0 1 0.035586309072
1 1 0 0.035586309072
1 0 4 0.072213905881
1 4 0 0.072213905881
2 3 0 0.082233029208
2 0 3 0.082233029208
2 0 4 0.093535756032
2 4 0 0.093535756032
2 0 2 0.098765847584
2 2 0 0.098765847584
2 0 1 0.107683314901
2 1 0 0.107683314901
3 3 2 0.110541686495
3 2 3 0.110541686495
3 3 4 0.111989373365
3 4 3 0.111989373365
3 3 1 0.123164162444
3 1 3 0.123164162444
3 4 0 0.124558300200
3 0 4 0.124558300200
3 1 2 0.127622896102
3 2 1 0.127622896102
3 1 0 0.144833608024
3 0 1 0.144833608024
4 1 0 0.145439210624
4 2 0 0.145439210624
4 3 0 0.145439210624
4 3 0 0.145439220624
4 2 0 0.145439220624
4 1 0 0.145439220624
4 1 0 0.145439230624
4 2 0 0.145439230624
4 3 0 0.145439230624
4 3 0 0.145439240624
4 2 0 0.145439240624
4 1 0 0.145439240624
4 4 0 0.145643885174
4 4 0 0.145643895174
4 4 0 0.145643905174
4 4 0 0.145643915174
4 0 1 0.145914029485
4 0 1 0.145959672297
4 0 1 0.145971453137
4 0 2 0.145995172263
4 0 1 0.145998541886
4 0 2 0.146040815076
4 0 2 0.146064900993
4 0 2 0.146077650382
4 0 3 0.146158725676
4 0 3 0.146158947147
4 0 3 0.146171335363
4 0 3 0.146173008478
4 0 4 0.146391112001
4 0 4 0.146402714339
4 0 4 0.146408908447
4 0 4 0.146412005501
5 4 3 0.157814660613
5 3 4 0.157814660613
5 3 0 0.165558577286
5 0 3 0.165558577286
5 0 1 0.173192412327
5 1 0 0.173192412327
5 0 2 0.173342412327
5 2 0 0.173342412327
end 0.173745964737
";

/// SimGrid 3.32's output on FLAT, with other penalty factors:
///   smpirun -np 5 -platform flat.xml -hostfile <n0..n4>
///     --cfg=network/model:IB "--cfg=smpi/IB-penalty-factors:0.5;0.7;2"
///     --cfg=smpi/simulate-computation:no ./ib_contention
const SIMGRID_FLAT: &str = "
1 0 3 0.001182891160
1 3 0 0.001182891160
1 0 2 0.001851701208
1 2 0 0.001851701208
1 0 1 0.002743447940
1 1 0 0.002743447940
1 0 4 0.004526941403
1 4 0 0.004526941403
2 3 0 0.005810702158
2 0 3 0.005810702158
2 0 4 0.006479512207
2 4 0 0.006479512207
2 0 2 0.007371258939
2 2 0 0.007371258939
2 0 1 0.008263005670
2 1 0 0.008263005670
3 3 2 0.008830570765
3 2 3 0.008830570765
3 3 4 0.008976872964
3 4 3 0.008976872964
3 3 1 0.010147290549
3 1 3 0.010147290549
3 1 2 0.010593163915
3 2 1 0.010593163915
3 4 0 0.010871834768
3 0 4 0.010871834768
3 0 1 0.011498180687
3 1 0 0.011498180687
4 1 0 0.011599050282
4 2 0 0.011599050282
4 3 0 0.011599050282
4 4 0 0.011599050282
4 4 0 0.011599060282
4 3 0 0.011599060282
4 2 0 0.011599060282
4 1 0 0.011599060282
4 1 0 0.011599070282
4 2 0 0.011599070282
4 3 0 0.011599070282
4 4 0 0.011599070282
4 4 0 0.011599080282
4 3 0 0.011599080282
4 2 0 0.011599080282
4 1 0 0.011599080282
4 0 1 0.011666285723
4 0 1 0.011672198005
4 0 2 0.011674037381
4 0 2 0.011679161359
4 0 1 0.011682787026
4 0 2 0.011683799171
4 0 2 0.011687740692
4 0 3 0.011688923148
4 0 1 0.011689597003
4 0 3 0.011691766444
4 0 3 0.011693091546
4 0 3 0.011694175515
4 0 4 0.011695404013
4 0 4 0.011696704776
4 0 4 0.011697324187
4 0 4 0.011697633892
5 1 0 0.013773114165
5 0 1 0.013773114165
5 0 2 0.013873114165
5 2 0 0.013873114165
5 3 0 0.016535480460
5 0 3 0.016535480460
5 4 3 0.018312543777
5 3 4 0.018312543777
end 0.018362952051
";

/// The dates of each `phase rank peer` key, in order.
fn dates(out: &str) -> BTreeMap<String, Vec<f64>> {
    let mut m: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for line in out.lines().filter(|l| !l.trim().is_empty()) {
        let (key, date) = line.trim().rsplit_once(' ').expect("key and date");
        m.entry(key.to_string())
            .or_default()
            .push(date.parse().expect("a date"));
    }
    for v in m.values_mut() {
        v.sort_by(f64::total_cmp);
    }
    m
}

/// Runs ib_contention.c on five hosts of `platform` under the IB model and
/// compares every date with SimGrid's. Ranks woken at the same date may
/// print in another order than SimGrid's, so dates are compared by key.
fn agrees_with_simgrid(platform: (&str, &str), hosts: &str, options: &[&str], simgrid: &str) {
    let app = build("tests/c/ib_contention.c");
    let hostfile = write_scratch(&format!("{}.hosts", platform.0), &hosts.replace(' ', "\n"));
    let platform = write_scratch(platform.0, platform.1);
    let mut args = vec![
        "-np",
        "5",
        "-platform",
        platform.to_str().unwrap(),
        "-hostfile",
        hostfile.to_str().unwrap(),
        NO_COMPUTE,
        "--cfg=network/model:IB",
    ];
    args.extend_from_slice(options);
    args.push(app.to_str().unwrap());
    let o = run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let (ours, theirs) = (dates(&out), dates(simgrid));
    assert_eq!(
        ours.keys().collect::<Vec<_>>(),
        theirs.keys().collect::<Vec<_>>(),
        "{out}"
    );
    for (key, expected) in &theirs {
        assert_eq!(ours[key].len(), expected.len(), "{key}:\n{out}");
        for (got, want) in ours[key].iter().zip(expected) {
            // SimGrid prints 12 decimals; we agree to a few 1e-12 s.
            assert!(
                (got - want).abs() < 1e-11,
                "{key}: ours {got:.12}, SimGrid {want:.12}\n{out}"
            );
        }
    }
}

#[test]
fn ib_dates_match_simgrid_on_a_fat_tree() {
    agrees_with_simgrid(
        ("ib_fat_tree.xml", FAT_TREE),
        "node-0.simgrid.org node-1.simgrid.org node-2.simgrid.org node-3.simgrid.org node-4.simgrid.org",
        &[],
        SIMGRID_FAT_TREE,
    );
}

#[test]
fn ib_dates_match_simgrid_on_a_flat_cluster_with_other_factors() {
    agrees_with_simgrid(
        ("ib_flat.xml", FLAT),
        "n0 n1 n2 n3 n4",
        &["--cfg=smpi/IB-penalty-factors:0.5;0.7;2"],
        SIMGRID_FLAT,
    );
}

#[test]
fn ib_penalty_factors_must_be_three_numbers() {
    let app = build("tests/c/ib_contention.c");
    for bad in ["0.965;0.925", "0.965;x;1.35"] {
        let factors = format!("--cfg=smpi/IB-penalty-factors:{bad}");
        let o = run(&[
            "-np",
            "5",
            NO_COMPUTE,
            "--cfg=network/model:IB",
            &factors,
            app.to_str().unwrap(),
        ]);
        assert!(!o.status.success());
        assert!(
            stderr(&o).contains("smpi/IB-penalty-factors"),
            "{}",
            stderr(&o)
        );
    }
    // Read by the IB model only, as in SimGrid.
    let o = run(&[
        "-np",
        "5",
        NO_COMPUTE,
        "--cfg=smpi/IB-penalty-factors:bad",
        app.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
}
