//! Nested zones: routes through `<zoneRoute>` gateways, routers and
//! clusters inside zones. Every expected route is what SimGrid 3.32 gives
//! for the same file (`Host::route_to`), but for traffic within one host,
//! for which SMPI uses the global loopback link.

use platforms::{LinkUse, Platform};

fn load(file: &str) -> Platform {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(file);
    Platform::from_xml_file(&path).unwrap_or_else(|e| panic!("{e}"))
}

fn route(p: &Platform, src: &str, dst: &str) -> String {
    let mut out: Vec<LinkUse> = Vec::new();
    let host = |n: &str| p.host_by_name(n).unwrap_or_else(|| panic!("no host {n}"));
    p.route(host(src), host(dst), &mut out)
        .unwrap_or_else(|e| panic!("{e}"));
    out.iter()
        .map(|&u| p.link_use_name(u))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn clusters_and_a_zone_joined_by_zone_routes() {
    let p = load("two_clusters_and_a_zone.xml");
    for (src, dst, links) in [
        // Within a cluster, as before.
        ("a-0", "a-1", "c1_link_0_UP c1_backbone c1_link_1_DOWN"),
        // Up to c1's router (through the backbone), across, down from r2
        // (c2 has no backbone).
        ("a-0", "b-1", "c1_link_0_UP c1_backbone wan c2_link_1_DOWN"),
        ("b-1", "a-0", "c2_link_1_UP wan c1_backbone c1_link_0_DOWN"),
        // To a router of a Full zone, then its declared route.
        ("a-1", "h2", "c1_link_1_UP c1_backbone wan2_UP l2_DOWN"),
        ("h2", "a-1", "l2_UP wan2_DOWN c1_backbone c1_link_1_DOWN"),
        // Asymmetric zone routes, each way its own.
        ("b-0", "h1", "c2_link_0_UP wan wan2_DOWN l1"),
        ("h1", "b-0", "l1 wan2_UP c2_link_0_DOWN"),
        ("h1", "h2", "l3"),
    ] {
        assert_eq!(route(&p, src, dst), links, "{src} -> {dst}");
    }
    assert_eq!(route(&p, "h1", "h1"), "__loopback__");
    assert!(p.describe().starts_with(
        "zone 'world' (routing Full) with 3 nested zones: c1 (FLAT cluster), c2 (FLAT cluster), z3 (Full)"
    ), "{}", p.describe());
    p.check_routes().unwrap();
}

#[test]
fn three_levels_with_topology_clusters_and_host_gateways() {
    let p = load("nested_sites.xml");
    for (src, dst, links) in [
        (
            "t-0",
            "w",
            "t1_link_from_0_to_1_UP s1a link_from_0_7_0_UP link_from_7_5_4_UP \
             link_from_6_5_6_DOWN link_from_2_6_2_DOWN wan xy zx wl_DOWN",
        ),
        (
            "w",
            "t-3",
            "wl_UP zx xy wan link_from_2_6_2_UP link_from_6_5_6_UP link_from_7_5_4_DOWN \
             link_from_0_7_0_DOWN s1a t1_link_from_1_to_3_UP",
        ),
        ("y", "f-3", "xy wan link_from_2_6_2_UP link_from_3_6_3_DOWN"),
    ] {
        assert_eq!(route(&p, src, dst), links, "{src} -> {dst}");
    }
}

#[test]
fn missing_zone_routes_name_the_zone_and_the_leg() {
    let xml = r#"<platform version="4.1"><zone id="w" routing="Full">
  <zone id="a" routing="Full"><host id="h1" speed="1Gf"/></zone>
  <zone id="b" routing="Full"><host id="h2" speed="1Gf"/><host id="h3" speed="1Gf"/></zone>
  <link id="l" bandwidth="1GBps"/>
  <zoneRoute src="a" dst="b" gw_src="h1" gw_dst="h3"><link_ctn id="l"/></zoneRoute>
</zone></platform>"#;
    let p = Platform::from_xml_str(xml, "z.xml").unwrap();
    let (h1, h2) = (p.host_by_name("h1").unwrap(), p.host_by_name("h2").unwrap());
    let mut out = Vec::new();
    p.route(h1, p.host_by_name("h3").unwrap(), &mut out)
        .unwrap();
    let e = p.route(h1, h2, &mut out).unwrap_err().to_string();
    assert!(
        e.contains("on the way, between 'h3' and 'h2': zone 'b' (routing=\"Full\") declares no <route src=\"h3\" dst=\"h2\">"),
        "{e}"
    );
    assert!(p.check_routes().is_err());
}

/// SimGrid 3.32's routes between every two hosts of a ring of four routers
/// (each with a host, plus a two-link shortcut r0 -> r2) in a Floyd zone.
/// Equal-length choices (h0 -> h2, h1 -> h3) show the tie-breaking.
const FLOYD_RING: &[(&str, &str, &str)] = &[
    ("h0", "h1", "a0 b01 a1"),
    ("h0", "h2", "a0 c02a c02b a2"),
    ("h0", "h3", "a0 b30 a3_DOWN"),
    ("h1", "h0", "a1 b01 a0"),
    ("h1", "h2", "a1 b12 a2"),
    ("h1", "h3", "a1 b01 b30 a3_DOWN"),
    ("h2", "h0", "a2 b12 b01 a0"),
    ("h2", "h1", "a2 b12 a1"),
    ("h2", "h3", "a2 b23 a3_DOWN"),
    ("h3", "h0", "a3_UP b30 a0"),
    ("h3", "h1", "a3_UP b30 b01 a1"),
    ("h3", "h2", "a3_UP b23 a2"),
];

#[test]
fn floyd_and_dijkstra_zones_take_simgrids_shortest_routes() {
    let floyd = load("floyd_ring.xml");
    let dijkstra = load("dijkstra_ring.xml");
    for &(src, dst, links) in FLOYD_RING {
        assert_eq!(route(&floyd, src, dst), links, "Floyd {src} -> {dst}");
        // Dijkstra finds the same chains, but SimGrid lists the links of a
        // multi-link hop backwards (so do we; the simulation cannot tell).
        let expected = if (src, dst) == ("h0", "h2") {
            "a0 c02b c02a a2"
        } else {
            links
        };
        assert_eq!(
            route(&dijkstra, src, dst),
            expected,
            "Dijkstra {src} -> {dst}"
        );
    }
    // Within a host: the global loopback, as SimGrid's base routing adds.
    assert_eq!(route(&floyd, "h1", "h1"), "__loopback__");
    assert_eq!(route(&dijkstra, "h1", "h1"), "__loopback__");
    assert!(
        floyd
            .describe()
            .starts_with("zone 'g' (routing Floyd): 4 hosts"),
        "{}",
        floyd.describe()
    );
}

#[test]
fn a_floyd_zone_of_zones_stitches_gateways() {
    // c1 -> mid arrives at router min, mid -> c3 leaves from mout: the
    // route from c1 to c3 crosses mid from min to mout (link io).
    let p = load("floyd_zones.xml");
    assert_eq!(
        route(&p, "a-0", "c-1"),
        "c1_link_0_UP c1_backbone w1 io w2_UP c3_link_1_DOWN"
    );
    assert_eq!(
        route(&p, "c-0", "a-1"),
        "c3_link_0_UP w2_DOWN io w1 c1_backbone c1_link_1_DOWN"
    );
    assert_eq!(route(&p, "m", "c-0"), "mo w2_UP c3_link_0_DOWN");
}

#[test]
fn bypass_routes_replace_routes_one_way() {
    let p = load("bypass.xml");
    // <bypassRoute h1 h2> replaces the declared route, one way only.
    assert_eq!(route(&p, "h1", "h2"), "fast12");
    assert_eq!(route(&p, "h2", "h1"), "l3");
    // <bypassZoneRoute c1 c2 gw_src=a-1 gw_dst=b-0>: to and from its
    // gateways, even the source's or destination's own (as SimGrid does).
    assert_eq!(
        route(&p, "a-0", "b-0"),
        "c1_link_0_UP c1_backbone c1_link_1_DOWN fast c2_link_0_UP c2_link_0_DOWN"
    );
    assert_eq!(
        route(&p, "a-1", "b-1"),
        "c1_link_1_UP c1_backbone c1_link_1_DOWN fast c2_link_0_UP c2_link_1_DOWN"
    );
    assert_eq!(
        route(&p, "b-0", "a-0"),
        "c2_link_0_UP wan c1_backbone c1_link_0_DOWN"
    );
}
