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
