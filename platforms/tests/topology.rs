//! TORUS, FAT_TREE and DRAGONFLY clusters: routes worked out by hand from
//! the rules in `src/topology.rs` (each also what SimGrid 3.32 prints for
//! the same file), link names, bandwidths, and the errors of bad shapes.

use platforms::{Direction, HostId, LinkUse, Platform, PlatformError, Problem};

fn cluster(topology: &str, params: &str, hosts: usize, extra: &str) -> String {
    format!(
        r#"<?xml version="1.0"?>
<platform version="4.1">
  <cluster id="c" prefix="node-" suffix="" radical="0-{}" speed="1Gf" bw="1.25GBps" lat="10us"
           topology="{topology}" topo_parameters="{params}" {extra}/>
</platform>"#,
        hosts - 1
    )
}

fn load(xml: &str) -> Platform {
    Platform::from_xml_str(xml, "topo.xml").unwrap_or_else(|e| panic!("{e}"))
}

fn host(p: &Platform, name: &str) -> HostId {
    p.host_by_name(name)
        .unwrap_or_else(|| panic!("no host {name}"))
}

fn route(p: &Platform, src: usize, dst: usize) -> Vec<String> {
    let mut out: Vec<LinkUse> = Vec::new();
    let (s, d) = (
        host(p, &format!("node-{src}")),
        host(p, &format!("node-{dst}")),
    );
    p.route(s, d, &mut out).unwrap_or_else(|e| panic!("{e}"));
    out.iter().map(|&u| p.link_use_name(u)).collect()
}

fn error(xml: &str) -> PlatformError {
    match Platform::from_xml_str(xml, "topo.xml") {
        Ok(_) => panic!("accepted:\n{xml}"),
        Err(e) => e,
    }
}

#[test]
fn torus_routes_go_dimension_by_dimension_the_short_way_round() {
    // 3 x 2: node i is at (i % 3, i / 3).
    let p = load(&cluster("TORUS", "3,2", 6, ""));
    assert_eq!(route(&p, 0, 1), ["c_link_from_0_to_1_UP"]);
    // From x=0 to x=2, left is shorter: across the wrap-around, through
    // node 2's link to its +1 neighbour (0), used backwards.
    assert_eq!(route(&p, 0, 2), ["c_link_from_2_to_0_DOWN"]);
    // x first (left, wrapping), then y (right).
    assert_eq!(
        route(&p, 0, 5),
        ["c_link_from_2_to_0_DOWN", "c_link_from_2_to_5_UP"]
    );
    // From (2,1) to (0,0): x goes right across the wrap-around (2 -> 0),
    // then y left, through node 0's link to node 3, backwards.
    assert_eq!(
        route(&p, 5, 0),
        ["c_link_from_5_to_3_UP", "c_link_from_0_to_3_DOWN"]
    );
    // A 4-ring: 0 -> 2 is 2 steps either way; SimGrid goes right.
    let ring = load(&cluster("TORUS", "4", 4, ""));
    assert_eq!(
        route(&ring, 0, 2),
        ["c_link_from_0_to_1_UP", "c_link_from_1_to_2_UP"]
    );
    assert_eq!(route(&ring, 0, 3), ["c_link_from_3_to_0_DOWN"]);
    // Within a host and no loopback: nothing to cross.
    assert!(route(&p, 4, 4).is_empty());
    assert_eq!(
        p.links().len(),
        1 + 6 * 2,
        "global loopback + 2 links per node"
    );
}

#[test]
fn torus_with_shared_links_and_loopback() {
    let p = load(&cluster(
        "TORUS",
        "2,3,4",
        24,
        r#"sharing_policy="SHARED" loopback_bw="5GBps" loopback_lat="1us""#,
    ));
    assert_eq!(route(&p, 7, 7), ["c_link_7_loopback"]);
    // (0,0,0) -> (1,1,1) = node 1 + 2 + 6 = 9: one hop per dimension.
    assert_eq!(
        route(&p, 0, 9),
        [
            "c_link_from_0_to_1",
            "c_link_from_1_to_3",
            "c_link_from_3_to_9"
        ]
    );
    let l = p.link(p.link_by_name("c_link_from_0_to_1").unwrap());
    assert_eq!(l.bandwidth, 1.25e9);
    assert!((l.latency - 1e-5).abs() < 1e-15, "{}", l.latency);
}

#[test]
fn fat_tree_routes_up_by_d_mod_k_and_down_by_label() {
    // 2;4,4;1,2;1,2: 16 nodes, 4 leaf switches (31..28, one per 4 nodes),
    // 2 top switches (27, 26), 2 parallel links from each leaf to each top.
    let p = load(&cluster("FAT_TREE", "2;4,4;1,2;1,2", 16, ""));
    // Same leaf: up and down.
    assert_eq!(
        route(&p, 0, 1),
        ["link_from_0_31_0_UP", "link_from_1_31_1_DOWN"]
    );
    // Up port 15 mod 4 = 3 = the second cable to top 26 (link 19); down
    // to leaf 28 on cable 0 mod 2 = 0 (link 30).
    assert_eq!(
        route(&p, 0, 15),
        [
            "link_from_0_31_0_UP",
            "link_from_31_26_19_UP",
            "link_from_28_26_30_DOWN",
            "link_from_15_28_15_DOWN"
        ]
    );
    // From node 1, the way down takes the other parallel cable (1 mod 2).
    assert_eq!(
        route(&p, 1, 15),
        [
            "link_from_1_31_1_UP",
            "link_from_31_26_19_UP",
            "link_from_28_26_31_DOWN",
            "link_from_15_28_15_DOWN"
        ]
    );
    // Within a host: to the leaf and back.
    assert_eq!(
        route(&p, 3, 3),
        ["link_from_3_31_3_UP", "link_from_3_31_3_DOWN"]
    );
    // 16 node links + 4 leaves x 2 tops x 2 cables, plus the global loopback.
    assert_eq!(p.links().len(), 1 + 16 + 16);
}

#[test]
fn three_level_fat_tree_divides_by_the_parents_below() {
    // 3;2,2,2;1,2,2;1,1,1: 8 nodes, switches numbered 15 downwards.
    let p = load(&cluster("FAT_TREE", "3;2,2,2;1,2,2;1,1,1", 8, ""));
    // node 0 -> node 7: ports 7 mod 1, 7/1 mod 2 = 1, 7/2 mod 2 = 1.
    assert_eq!(
        route(&p, 0, 7),
        [
            "link_from_0_15_0_UP",
            "link_from_15_10_9_UP",
            "link_from_10_4_19_UP",
            "link_from_8_4_23_DOWN",
            "link_from_12_8_15_DOWN",
            "link_from_7_12_7_DOWN"
        ]
    );
    assert_eq!(
        route(&p, 0, 2),
        [
            "link_from_0_15_0_UP",
            "link_from_15_11_8_UP",
            "link_from_14_11_10_DOWN",
            "link_from_2_14_2_DOWN"
        ]
    );
}

#[test]
fn dragonfly_routes_within_and_between_groups() {
    // 2 groups of 2 chassis of 4 routers of 4 nodes; node i is in group
    // i / 32, chassis i % 32 / 16, router i % 16 / 4.
    let p = load(&cluster("DRAGONFLY", "2,1;2,1;4,1;4", 64, ""));
    // Same router.
    assert_eq!(
        route(&p, 0, 1),
        [
            "local_link_from_router_0_to_node_0_0_UP",
            "local_link_from_router_0_to_node_1_1_DOWN"
        ]
    );
    // Same group, same chassis 1, blades 1 -> 3: green to blade 3, then
    // (SimGrid's way) black from chassis 0's blade-3 router to chassis 1.
    assert_eq!(
        route(&p, 20, 30),
        [
            "local_link_from_router_5_to_node_0_20_UP",
            "green_link_in_chassis_1_between_routers_1_and_3_74_UP",
            "black_link_in_group_0_between_chassis_0_and_1_blade_3_91_UP",
            "local_link_from_router_7_to_node_2_30_DOWN"
        ]
    );
    // Group 0 -> group 1: to blade 1 (the target group) of our chassis,
    // across the blue link to group 1's router of blade 0 (our group),
    // then green to blade 3 and black to chassis 1.
    assert_eq!(
        route(&p, 0, 63),
        [
            "local_link_from_router_0_to_node_0_0_UP",
            "green_link_in_chassis_0_between_routers_0_and_1_64_UP",
            "blue_link_between_group_0_and_1_routers_1_and_8_96_UP",
            "green_link_in_chassis_0_between_routers_0_and_3_78_UP",
            "black_link_in_group_1_between_chassis_0_and_1_blade_3_95_UP",
            "local_link_from_router_15_to_node_3_63_DOWN"
        ]
    );
    // And back: from chassis 1, black to chassis 0 first.
    assert_eq!(
        route(&p, 63, 0),
        [
            "local_link_from_router_15_to_node_3_63_UP",
            "green_link_in_chassis_1_between_routers_0_and_3_84_DOWN",
            "black_link_in_group_1_between_chassis_0_and_1_blade_0_92_DOWN",
            "blue_link_between_group_0_and_1_routers_1_and_8_96_DOWN",
            "green_link_in_chassis_0_between_routers_0_and_1_64_DOWN",
            "local_link_from_router_0_to_node_0_0_DOWN"
        ]
    );
}

#[test]
fn dragonfly_link_counts_multiply_bandwidth() {
    let p = load(&cluster(
        "DRAGONFLY",
        "2,3;2,2;4,2;2",
        32,
        r#"sharing_policy="SHARED""#,
    ));
    let bw = |name: &str| p.link(p.link_by_name(name).unwrap()).bandwidth;
    assert_eq!(bw("local_link_from_router_0_to_node_0_0"), 1.25e9);
    assert_eq!(
        bw("green_link_in_chassis_0_between_routers_0_and_1_32"),
        2.5e9
    );
    assert_eq!(
        bw("black_link_in_group_0_between_chassis_0_and_1_blade_1_57"),
        2.5e9
    );
    let blue = p
        .links()
        .iter()
        .find(|l| l.name.starts_with("blue_link_between_group_0_and_1"))
        .unwrap();
    assert_eq!(blue.bandwidth, 3.75e9);
    assert!(route(&p, 0, 10)
        .iter()
        .all(|n| !n.ends_with("_UP") && !n.ends_with("_DOWN")));
}

#[test]
fn a_large_fat_tree_loads_without_a_route_table() {
    // The 512-node tree of the HPL study with its 16 top switches.
    let p = load(&cluster("FAT_TREE", "2;16,32;1,16;1,1", 512, ""));
    assert_eq!(p.hosts().len(), 512);
    assert_eq!(p.links().len(), 1 + 512 + 32 * 16);
    assert_eq!(route(&p, 0, 511).len(), 4);
    assert!(
        p.describe().contains("FAT_TREE 2;16,32;1,16;1,1"),
        "{}",
        p.describe()
    );
    let mut out = Vec::new();
    p.route(HostId(5), HostId(5), &mut out).unwrap();
    assert_eq!(out[0].direction, Direction::Up);
}

#[test]
fn bad_shapes_name_the_problem() {
    let cases = [
        ("TORUS", "4,0", 4, "positive"),
        ("TORUS", "4,x", 4, "positive"),
        ("TORUS", "4,4", 15, "16 values"),
        (
            "FAT_TREE",
            "2;4,4;1,2",
            16,
            "4 parts separated by ';', not 3",
        ),
        (
            "FAT_TREE",
            "2;4,4;1;1,1",
            16,
            "one value per level for the up ports (2 levels), not 1",
        ),
        ("FAT_TREE", "2;4,4;1,2;1,1", 12, "16 values"),
        (
            "DRAGONFLY",
            "2,1;2,1;4,1",
            8,
            "4 parts separated by ';', not 3",
        ),
        ("DRAGONFLY", "3,1;2,1;2,1;2", 24, "at most as many groups"),
        ("DRAGONFLY", "2;2,1;4,1;4", 64, "two numbers"),
    ];
    for (topology, params, hosts, expected) in cases {
        let e = error(&cluster(topology, params, hosts, ""));
        let text = e.to_string();
        assert!(text.contains(expected), "{topology} {params}: {text}");
        assert!(text.contains("topo.xml:"), "{text}");
        assert!(
            matches!(e.problem(), Some(Problem::BadValue { .. })),
            "{text}"
        );
    }
    let e = error(&cluster(
        "FAT_TREE",
        "3;2,2,4;1,2,2;1,2,1",
        16,
        r#"limiter_link="1GBps""#,
    ));
    assert!(
        e.to_string()
            .contains("20 switches for 16 nodes, and SimGrid names switch limiters"),
        "{e}"
    );
    let no_params = r#"<platform version="4.1"><cluster id="c" prefix="n" suffix="" radical="0-3" speed="1Gf" bw="1GBps" lat="1us" topology="TORUS"/></platform>"#;
    assert!(error(no_params).to_string().contains("topo_parameters"));
}

#[test]
fn dragonfly_valiant_routes_go_through_a_third_group() {
    // 3 groups of one chassis of 4 routers of 2 nodes: node i is in group
    // i / 8.
    let p = load(&cluster("DRAGONFLY", "3,1;1,1;4,1;2", 24, ""));
    assert!(p.has_valiant_routes());
    let valiant = |src: usize, dst: usize, salt: u64| -> Vec<String> {
        let mut out: Vec<LinkUse> = Vec::new();
        let (s, d) = (
            host(&p, &format!("node-{src}")),
            host(&p, &format!("node-{dst}")),
        );
        p.valiant_route(s, d, salt, &mut out).unwrap();
        out.iter().map(|&u| p.link_use_name(u)).collect()
    };
    let blue = |route: &[String]| -> Vec<String> {
        route
            .iter()
            .filter(|l| l.starts_with("blue_link_between_group_"))
            .map(|l| {
                l["blue_link_between_group_".len().."blue_link_between_group_".len() + 7]
                    .to_string()
            })
            .collect()
    };
    // Group 0 -> group 1: minimal crosses the 0-1 blue link; Valiant goes
    // 0 -> 2 -> 1.
    assert_eq!(blue(&route(&p, 0, 8)), ["0_and_1"]);
    for salt in 0..20 {
        let r = valiant(0, 8, salt);
        assert_eq!(blue(&r), ["0_and_2", "1_and_2"], "salt {salt}: {r:?}");
        assert_eq!(r[0], "local_link_from_router_0_to_node_0_0_UP");
        assert_eq!(
            r.last().unwrap(),
            "local_link_from_router_4_to_node_0_8_DOWN"
        );
        assert_eq!(r, valiant(0, 8, salt), "the salt fixes the route");
    }
    // Within group 0 (routers 0 and 1), Valiant leaves the group and comes
    // back: through group 1 or 2, depending on the salt.
    let groups: std::collections::BTreeSet<Vec<String>> =
        (0..20).map(|salt| blue(&valiant(0, 2, salt))).collect();
    assert_eq!(
        groups.into_iter().collect::<Vec<_>>(),
        [vec!["0_and_1", "0_and_1"], vec!["0_and_2", "0_and_2"]]
    );
    // Two groups: no third one, so Valiant is minimal.
    let two = load(&cluster("DRAGONFLY", "2,1;1,1;2,1;2", 8, ""));
    let mut out = Vec::new();
    two.valiant_route(HostId(0), HostId(7), 5, &mut out)
        .unwrap();
    let mut minimal = Vec::new();
    two.route(HostId(0), HostId(7), &mut minimal).unwrap();
    assert_eq!(out, minimal);
    assert!(!load(&cluster("TORUS", "4", 4, "")).has_valiant_routes());
}

#[test]
fn limiters_sit_where_simgrid_puts_them() {
    // SimGrid 3.32's routes with limiter_link="2GBps": limiters are named
    // by node index (whatever the radical), fat-tree switch number or
    // dragonfly router number (both from 2n-1 downwards).
    let limited = r#"limiter_link="2GBps""#;
    let torus = load(&cluster("TORUS", "2,2", 4, limited));
    // Each hop starts with the limiter of the node it leaves.
    assert_eq!(
        route(&torus, 0, 3),
        [
            "c_link_0_limiter",
            "c_link_from_0_to_1_UP",
            "c_link_1_limiter",
            "c_link_from_1_to_3_UP",
            "c_link_3_limiter"
        ]
    );
    let tree = load(&cluster("FAT_TREE", "2;2,2;1,2;1,1", 4, limited));
    // Up: a limiter before each link; down: after each link.
    assert_eq!(
        route(&tree, 0, 2),
        [
            "c_link_0_limiter",
            "link_from_0_7_0_UP",
            "c_link_7_limiter",
            "link_from_7_5_4_UP",
            "link_from_6_5_6_DOWN",
            "c_link_5_limiter",
            "link_from_2_6_2_DOWN",
            "c_link_6_limiter",
            "c_link_2_limiter"
        ]
    );
    let fly = load(&cluster("DRAGONFLY", "2,1;1,1;2,1;1", 4, limited));
    // The blue hop ends with the limiter of the router it leaves.
    assert_eq!(
        route(&fly, 0, 3),
        [
            "c_link_0_limiter",
            "local_link_from_router_0_to_node_0_0_UP",
            "c_link_7_limiter",
            "green_link_in_chassis_0_between_routers_0_and_1_4_UP",
            "blue_link_between_group_0_and_1_routers_1_and_2_6_UP",
            "c_link_6_limiter",
            "c_link_5_limiter",
            "green_link_in_chassis_0_between_routers_0_and_1_5_UP",
            "c_link_4_limiter",
            "local_link_from_router_3_to_node_0_3_DOWN",
            "c_link_3_limiter"
        ]
    );
    let l = fly.link(fly.link_by_name("c_link_4_limiter").unwrap());
    assert_eq!((l.bandwidth, l.latency), (2e9, 0.0));
}

#[test]
fn dragonfly_valiant_draws_are_pinned() {
    // 4 groups of 3 chassis of 5 routers of 2 nodes. The intermediate
    // router is drawn from the salt: these routes (link numbers and
    // directions) are what the SplitMix64 draws gave when they were
    // written, so a change of generator cannot go unnoticed.
    let p = load(&cluster("DRAGONFLY", "4,1;3,1;5,1;2", 120, ""));
    let compact = |src: u32, dst: u32, salt: u64| -> String {
        let mut out: Vec<LinkUse> = Vec::new();
        p.valiant_route(HostId(src), HostId(dst), salt, &mut out)
            .unwrap();
        out.iter()
            .map(|&u| {
                let name = p.link_use_name(u);
                let mut parts = name.rsplit('_');
                let dir = parts.next().unwrap();
                format!("{}{}", parts.next().unwrap(), &dir[..1])
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let pinned = [
        (0, 30, 0, "0U 122U 302U 213U 216D 304D 152D 30D"),
        (0, 30, 1, "0U 122U 302U 285U 220U 286D 304D 152D 30D"),
        (0, 30, 2, "0U 121U 301U 180U 276U 276D 303D 151D 30D"),
        (0, 30, 3, "0U 122U 302U 213U 216D 304D 152D 30D"),
        (
            7,
            100,
            42,
            "7U 127D 301U 182U 273U 273D 305U 211D 285U 100D",
        ),
        (50, 51, 7, "50U 260D 300D 300U 260U 51D"),
        (119, 3, u64::MAX, "119U 236D 291D 304D 155D 150D 300D 3D"),
        (64, 9, 12345, "64U 184D 303D 151D 300D 126U 9D"),
    ];
    for (src, dst, salt, route) in pinned {
        assert_eq!(compact(src, dst, salt), route, "({src}, {dst}, {salt})");
    }
}
