//! Loading SimGrid platform XML: names, routes and errors, checked against
//! what SimGrid 3.32 does.

use platforms::{
    Direction, HostId, LinkUse, Platform, PlatformError, Problem, Sharing, GLOBAL_LOOPBACK_NAME,
};

fn load(xml: &str) -> Platform {
    Platform::from_xml_str(xml, "test.xml").unwrap_or_else(|e| panic!("{e}"))
}

fn host(p: &Platform, name: &str) -> HostId {
    p.host_by_name(name)
        .unwrap_or_else(|| panic!("no host {name}"))
}

/// The route as SimGrid would print it: link (or half-link) names.
fn route(p: &Platform, src: &str, dst: &str) -> Vec<String> {
    let mut out = vec![LinkUse {
        link: p.global_loopback(),
        direction: Direction::None,
    }];
    p.route(host(p, src), host(p, dst), &mut out)
        .unwrap_or_else(|e| panic!("{e}"));
    out.iter().map(|&u| p.link_use_name(u)).collect()
}

fn link_names(p: &Platform) -> Vec<&str> {
    p.links().iter().map(|l| l.name.as_str()).collect()
}

fn host_names(p: &Platform) -> Vec<&str> {
    p.hosts().iter().map(|h| h.name.as_str()).collect()
}

const CANONICAL: &str = r#"<platform version="4.1"><zone id="zone0" routing="Full"><host id="host0" speed="1Gf"/><host id="host1" speed="1Gf"/><link id="link0" bandwidth="1.25GBps" latency="10us"/><route src="host0" dst="host1"><link_ctn id="link0"/></route></zone></platform>"#;

#[test]
fn canonical_full_zone() {
    let p = load(CANONICAL);
    assert_eq!(host_names(&p), ["host0", "host1"]);
    let h0 = p.host(host(&p, "host0"));
    assert_eq!((h0.speed, h0.cores), (1e9, 1));
    assert!(h0.properties.is_empty());
    assert_eq!(link_names(&p), [GLOBAL_LOOPBACK_NAME, "link0"]);
    let l = p.link(p.link_by_name("link0").unwrap());
    assert_eq!(
        (l.bandwidth, l.latency, l.sharing),
        (1.25e9, 10.0 * 1e-6, Sharing::Shared)
    );
    assert_eq!(route(&p, "host0", "host1"), ["link0"]);
    // Symmetrical by default.
    assert_eq!(route(&p, "host1", "host0"), ["link0"]);
    // Within a host: the global loopback, 10 GBps FATPIPE by default.
    assert_eq!(route(&p, "host0", "host0"), [GLOBAL_LOOPBACK_NAME]);
    let lo = p.link(p.global_loopback());
    assert_eq!(
        (lo.bandwidth, lo.latency, lo.sharing),
        (10e9, 0.0, Sharing::FatPipe)
    );
    assert!(p.config().is_empty());
    assert!(p.warnings().is_empty());
    assert!(p.check_routes().is_ok());
    assert_eq!(
        p.describe(),
        "zone 'zone0' (routing Full): 2 hosts, 1 link, 2 routes"
    );
}

#[test]
fn global_loopback_can_be_changed() {
    let mut p = load(CANONICAL);
    p.set_global_loopback(5e9, 1e-7);
    let lo = p.link(p.global_loopback());
    assert_eq!((lo.bandwidth, lo.latency), (5e9, 1e-7));
}

#[test]
fn doctype_declaration_comments_config_and_properties() {
    let p = load(
        r#"<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<!-- a comment -->
<platform version="4.1">
  <config id="General">
    <prop id="smpi/os" value="0:1e-6:0"/>
    <prop id="network/loopback-bw" value="1e9"/>
  </config>
  <zone id="AS0" routing="full">
    <prop id="zone-prop" value="z"/>
    <host id="a" speed="100Mf" core="4"><prop id="wattage" value="100.0:200.0"/></host>
    <host id="b" speed="1e9f,500Mf, 0.2Gf" pstate="1"/>
    <link id="l" bandwidth="10Gbps" latency="1ms"><prop id="k" value="v"/></link>
    <route src="a" dst="b" symmetrical="yes"><link_ctn id="l"/></route>
  </zone>
</platform>"#,
    );
    assert_eq!(
        p.config(),
        [
            ("smpi/os".to_string(), "0:1e-6:0".to_string()),
            ("network/loopback-bw".to_string(), "1e9".to_string())
        ]
    );
    let a = p.host(host(&p, "a"));
    assert_eq!((a.speed, a.cores), (1e8, 4));
    assert_eq!((a.pstate_speeds(), a.pstate), ([1e8].as_slice(), 0));
    assert_eq!(
        a.properties,
        [("wattage".to_string(), "100.0:200.0".to_string())]
    );
    // SimGrid's power states: a speed per pstate, the initial one given.
    let b = p.host(host(&p, "b"));
    assert_eq!(
        (b.pstate_speeds(), b.pstate),
        ([1e9, 5e8, 2e8].as_slice(), 1)
    );
    assert_eq!(b.speed, 5e8);
    let l = p.link(p.link_by_name("l").unwrap());
    assert_eq!((l.bandwidth, l.latency), (1.25e9, 1e-3));
    assert_eq!(l.properties, [("k".to_string(), "v".to_string())]);
    assert_eq!(
        p.zone_properties(),
        [("zone-prop".to_string(), "z".to_string())]
    );
    assert_eq!(route(&p, "b", "a"), ["l"]);
}

#[test]
fn asymmetric_routes_and_missing_ones() {
    let p = load(
        r#"<platform version="4.1"><zone id="z" routing="Full">
  <host id="h0" speed="1Gf"/><host id="h1" speed="1Gf"/><host id="h2" speed="1Gf"/>
  <link id="fwd" bandwidth="1GBps"/><link id="back" bandwidth="2GBps" latency="1us"/>
  <link id="self" bandwidth="3GBps"/>
  <route src="h0" dst="h1" symmetrical="NO"><link_ctn id="fwd"/></route>
  <route src="h1" dst="h0" symmetrical="NO"><link_ctn id="back"/><link_ctn id="fwd"/></route>
  <route src="h2" dst="h2"><link_ctn id="self"/></route>
</zone></platform>"#,
    );
    assert_eq!(route(&p, "h0", "h1"), ["fwd"]);
    assert_eq!(route(&p, "h1", "h0"), ["back", "fwd"]);
    // A declared route from a host to itself replaces the global loopback.
    assert_eq!(route(&p, "h2", "h2"), ["self"]);
    assert_eq!(route(&p, "h1", "h1"), [GLOBAL_LOOPBACK_NAME]);

    let mut out = Vec::new();
    let e = p
        .route(host(&p, "h0"), host(&p, "h2"), &mut out)
        .unwrap_err();
    assert_eq!((e.src.as_str(), e.dst.as_str()), ("h0", "h2"));
    assert_eq!(
        e.to_string(),
        "no route from host 'h0' to host 'h2': zone 'z' (routing=\"Full\") declares no \
         <route src=\"h0\" dst=\"h2\">"
    );
    assert!(out.is_empty());
    let e = p.check_routes().unwrap_err();
    assert_eq!((e.src.as_str(), e.dst.as_str()), ("h0", "h2"));
}

#[test]
fn split_duplex_links_use_halves_and_reverse_swaps_them() {
    let p = load(
        r#"<platform version="4.1"><zone id="z" routing="Full">
  <host id="a" speed="1Gf"/><host id="b" speed="1Gf"/><host id="c" speed="1Gf"/>
  <link id="sd" bandwidth="1GBps" latency="1us" sharing_policy="SPLITDUPLEX"/>
  <link id="fat" bandwidth="1GBps" sharing_policy="FATPIPE"/>
  <link id="old" bandwidth="1GBps" sharing_policy="FULLDUPLEX"/>
  <route src="a" dst="b"><link_ctn id="sd" direction="UP"/><link_ctn id="fat" direction="DOWN"/></route>
  <route src="a" dst="c"><link_ctn id="old_DOWN"/><link_ctn id="sd" direction="DOWN"/></route>
</zone></platform>"#,
    );
    let sd = p.link(p.link_by_name("sd").unwrap());
    assert_eq!(sd.sharing, Sharing::SplitDuplex);
    assert_eq!(
        p.link(p.link_by_name("fat").unwrap()).sharing,
        Sharing::FatPipe
    );
    // FULLDUPLEX is the deprecated spelling of SPLITDUPLEX.
    assert_eq!(
        p.link(p.link_by_name("old").unwrap()).sharing,
        Sharing::SplitDuplex
    );
    assert_eq!(p.warnings().len(), 1);
    assert!(
        p.warnings()[0].starts_with("test.xml:5: link 'old'"),
        "{:?}",
        p.warnings()
    );
    // A direction on a link that is not split is ignored, as in SimGrid.
    assert_eq!(route(&p, "a", "b"), ["sd_UP", "fat"]);
    assert_eq!(route(&p, "b", "a"), ["fat", "sd_DOWN"]);
    // Halves may be named directly.
    assert_eq!(route(&p, "a", "c"), ["old_DOWN", "sd_DOWN"]);
    assert_eq!(route(&p, "c", "a"), ["sd_UP", "old_UP"]);
    let mut out = Vec::new();
    p.route(host(&p, "a"), host(&p, "b"), &mut out).unwrap();
    assert_eq!(out[0].direction, Direction::Up);
    assert_eq!(out[1].direction, Direction::None);
}

#[test]
fn none_zone_has_no_routes() {
    let p = load(
        r#"<platform version="4.1"><zone id="solo" routing="None"><host id="h" speed="1Gf"/></zone></platform>"#,
    );
    let mut out = Vec::new();
    let e = p.route(host(&p, "h"), host(&p, "h"), &mut out).unwrap_err();
    assert!(e.to_string().contains("routing=\"None\""), "{e}");
    assert!(p.check_routes().is_err());
    assert_eq!(
        p.describe(),
        "zone 'solo' (routing None, no routes): 1 host, 0 links"
    );
}

/// SimGrid 3.32, sg_platf_new_cluster_flat + StarZone::get_local_route.
#[test]
fn cluster_without_backbone() {
    let p = load(
        r#"<platform version="4.1">
  <cluster id="c" prefix="n-" suffix=".me" radical="0-3" speed="1Gf" bw="125MBps" lat="50us"/>
</platform>"#,
    );
    assert_eq!(host_names(&p), ["n-0.me", "n-1.me", "n-2.me", "n-3.me"]);
    assert_eq!(
        link_names(&p),
        [
            GLOBAL_LOOPBACK_NAME,
            "c_link_0",
            "c_link_1",
            "c_link_2",
            "c_link_3"
        ]
    );
    let l = p.link(p.link_by_name("c_link_2").unwrap());
    assert_eq!(
        (l.bandwidth, l.latency, l.sharing),
        (125e6, 50.0 * 1e-6, Sharing::SplitDuplex)
    );
    assert_eq!(
        route(&p, "n-0.me", "n-1.me"),
        ["c_link_0_UP", "c_link_1_DOWN"]
    );
    assert_eq!(
        route(&p, "n-3.me", "n-0.me"),
        ["c_link_3_UP", "c_link_0_DOWN"]
    );
    // No loopback: up and back down the host's own link, as SimGrid does.
    assert_eq!(
        route(&p, "n-2.me", "n-2.me"),
        ["c_link_2_UP", "c_link_2_DOWN"]
    );
    assert!(p.check_routes().is_ok());
    assert_eq!(
        p.describe(),
        "cluster 'c' (FLAT): 4 hosts, 4 links; private links SPLITDUPLEX 125MBps 50us, \
         backbone none"
    );
}

#[test]
fn cluster_with_backbone_limiter_and_loopback() {
    let p = load(
        r#"<platform version="4.1">
  <cluster id="bob" prefix="node" suffix="" radical="0-1,5" speed="2Gf" core="8"
           bw="10Gbps" lat="1us" bb_bw="2.25GBps" bb_lat="500us" limiter_link="1GBps"
           loopback_bw="100MBps" loopback_lat="2us" router_id="r">
    <prop id="p" value="v"/>
  </cluster>
</platform>"#,
    );
    assert_eq!(host_names(&p), ["node0", "node1", "node5"]);
    for h in p.hosts() {
        assert_eq!((h.speed, h.cores), (2e9, 8));
        assert_eq!(h.properties, [("p".to_string(), "v".to_string())]);
    }
    // SimGrid's creation order: backbone, then per host loopback, limiter, link.
    assert_eq!(
        link_names(&p),
        [
            GLOBAL_LOOPBACK_NAME,
            "bob_backbone",
            "bob_link_0_loopback",
            "bob_link_0_limiter",
            "bob_link_0",
            "bob_link_1_loopback",
            "bob_link_1_limiter",
            "bob_link_1",
            "bob_link_5_loopback",
            "bob_link_5_limiter",
            "bob_link_5",
        ]
    );
    let link = |name: &str| p.link(p.link_by_name(name).unwrap()).clone();
    let bb = link("bob_backbone");
    assert_eq!(
        (bb.bandwidth, bb.latency, bb.sharing),
        (2.25e9, 500.0 * 1e-6, Sharing::Shared)
    );
    let lim = link("bob_link_5_limiter");
    assert_eq!(
        (lim.bandwidth, lim.latency, lim.sharing),
        (1e9, 0.0, Sharing::Shared)
    );
    let lo = link("bob_link_1_loopback");
    assert_eq!(
        (lo.bandwidth, lo.latency, lo.sharing),
        (100e6, 2.0 * 1e-6, Sharing::FatPipe)
    );
    let private = link("bob_link_0");
    assert_eq!(
        (private.bandwidth, private.latency, private.sharing),
        (1.25e9, 1e-6, Sharing::SplitDuplex)
    );
    assert_eq!(
        route(&p, "node0", "node5"),
        [
            "bob_link_0_limiter",
            "bob_link_0_UP",
            "bob_backbone",
            "bob_link_5_DOWN",
            "bob_link_5_limiter"
        ]
    );
    assert_eq!(route(&p, "node5", "node5"), ["bob_link_5_loopback"]);
    assert_eq!(p.zone_properties(), [("p".to_string(), "v".to_string())]);
}

#[test]
fn cluster_same_host_without_loopback_does_not_repeat_links() {
    // Split-duplex private links: both halves, the backbone once, the
    // limiter once.
    let p = load(
        r#"<platform version="4.1"><cluster id="c" prefix="h" suffix="" radical="0-1"
             speed="1Gf" bw="1GBps" lat="1us" bb_bw="10GBps" bb_lat="1us" limiter_link="500MBps"/></platform>"#,
    );
    assert_eq!(
        route(&p, "h1", "h1"),
        [
            "c_link_1_limiter",
            "c_link_1_UP",
            "c_backbone",
            "c_link_1_DOWN"
        ]
    );
    // Shared private links: the link once.
    let p = load(
        r#"<platform version="4.1"><cluster id="c" prefix="h" suffix="" radical="0-1"
             speed="1Gf" bw="1GBps" lat="1us" bb_bw="10GBps" sharing_policy="SHARED"/></platform>"#,
    );
    assert_eq!(route(&p, "h1", "h1"), ["c_link_1", "c_backbone"]);
    assert_eq!(
        route(&p, "h0", "h1"),
        ["c_link_0", "c_backbone", "c_link_1"]
    );
    assert_eq!(
        p.link(p.link_by_name("c_link_0").unwrap()).sharing,
        Sharing::Shared
    );
}

#[test]
fn cluster_fatpipe_private_links_are_shared_like_simgrid() {
    let p = load(
        r#"<platform version="4.1"><cluster id="c" prefix="h" suffix="" radical="0-1"
             speed="1Gf" bw="1GBps" lat="1us" sharing_policy="FATPIPE" bb_bw="10GBps"
             bb_sharing_policy="FATPIPE"/></platform>"#,
    );
    assert_eq!(
        p.link(p.link_by_name("c_link_0").unwrap()).sharing,
        Sharing::Shared
    );
    assert_eq!(
        p.link(p.link_by_name("c_backbone").unwrap()).sharing,
        Sharing::FatPipe
    );
    assert_eq!(p.warnings().len(), 1);
    assert!(
        p.warnings()[0].contains("as SHARED links"),
        "{:?}",
        p.warnings()
    );
}

#[test]
fn cluster_inside_a_zone() {
    let p = load(
        r#"<platform version="4.1">
  <zone id="AS0" routing="Full">
    <cluster id="c" prefix="c-" suffix=".me" radical="0-99" speed="1Gf" bw="125MBps" lat="50us"
             bb_bw="2.25GBps" bb_lat="500us"/>
  </zone>
</platform>"#,
    );
    assert_eq!(p.hosts().len(), 100);
    assert_eq!(
        route(&p, "c-7.me", "c-42.me"),
        ["c_link_7_UP", "c_backbone", "c_link_42_DOWN"]
    );
    assert_eq!(
        route(&p, "c-7.me", "c-7.me"),
        ["c_link_7_UP", "c_backbone", "c_link_7_DOWN"]
    );
    assert_eq!(
        p.describe(),
        "zone 'AS0' holding cluster 'c' (FLAT): 100 hosts, 101 links; private links \
         SPLITDUPLEX 125MBps 50us, backbone SHARED 2.25GBps 500us"
    );
}

#[test]
fn default_cluster() {
    let mut p = Platform::default_cluster(4, 2e9);
    assert_eq!(host_names(&p), ["node-0", "node-1", "node-2", "node-3"]);
    for h in p.hosts() {
        assert_eq!((h.speed, h.cores), (2e9, 1));
    }
    let link = |p: &Platform, name: &str| p.link(p.link_by_name(name).unwrap()).clone();
    let bb = link(&p, "default_backbone");
    assert_eq!(
        (bb.bandwidth, bb.latency, bb.sharing),
        (12.5e9, 0.0, Sharing::FatPipe)
    );
    let l = link(&p, "default_link_3");
    assert_eq!(
        (l.bandwidth, l.latency, l.sharing),
        (12.5e9, 1e-6, Sharing::SplitDuplex)
    );
    assert_eq!(p.links().len(), 6);
    assert_eq!(
        route(&p, "node-0", "node-3"),
        [
            "default_link_0_UP",
            "default_backbone",
            "default_link_3_DOWN"
        ]
    );
    assert_eq!(route(&p, "node-2", "node-2"), [GLOBAL_LOOPBACK_NAME]);
    p.set_global_loopback(1e9, 1e-6);
    assert_eq!(p.link(p.global_loopback()).bandwidth, 1e9);
    assert!(p.config().is_empty() && p.warnings().is_empty());
    assert_eq!(
        p.describe(),
        "cluster 'default' (FLAT): 4 hosts, 5 links; private links SPLITDUPLEX 12.5GBps 1us, \
         backbone FATPIPE 12.5GBps 0s"
    );
    assert!(Platform::default_cluster(0, 1e9).hosts().is_empty());
}

#[test]
fn large_default_cluster_routes_without_a_table() {
    let n = 200_000;
    let p = Platform::default_cluster(n, 1e9);
    assert_eq!(p.hosts().len(), n);
    let mut out = Vec::new();
    p.route(HostId(0), HostId(n as u32 - 1), &mut out).unwrap();
    assert_eq!(out.len(), 3);
    assert_eq!(
        p.link_use_name(out[2]),
        format!("default_link_{}_DOWN", n - 1)
    );
    assert_eq!(p.host_by_name("node-199999"), Some(HostId(n as u32 - 1)));
}

#[test]
fn unitless_values_are_accepted_with_a_warning() {
    let p = load(
        r#"<platform version="4.1"><zone id="z" routing="Full">
<host id="a" speed="1000000000"/>
<link id="l" bandwidth="125000000" latency="0"/>
</zone></platform>"#,
    );
    assert_eq!(p.host(HostId(0)).speed, 1e9);
    assert_eq!(p.link(p.link_by_name("l").unwrap()).bandwidth, 125e6);
    // Zero needs no unit.
    assert_eq!(p.warnings().len(), 2, "{:?}", p.warnings());
    assert!(p.warnings()[0]
        .starts_with("test.xml:2: host 'a': unit-less speed '1000000000' taken as 1000000000f"));
    assert!(p.warnings()[1].starts_with("test.xml:3: link 'l': unit-less bandwidth"));
}

#[test]
fn from_file() {
    let dir = std::env::temp_dir().join(format!("platforms-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("small.xml");
    std::fs::write(&path, CANONICAL).unwrap();
    let p = Platform::from_xml_file(&path).unwrap();
    assert_eq!(p.hosts().len(), 2);

    let bad = dir.join("bad.xml");
    std::fs::write(&bad, CANONICAL.replace("1.25GBps", "1.25GBs")).unwrap();
    let msg = Platform::from_xml_file(&bad).unwrap_err().to_string();
    assert!(
        msg.starts_with(&format!(
            "{}:1: link 'link0': bandwidth '1.25GBs'",
            bad.display()
        )),
        "{msg}"
    );

    let missing = dir.join("missing.xml");
    let e = Platform::from_xml_file(&missing).unwrap_err();
    assert!(matches!(e, PlatformError::Io { .. }));
    assert!(e
        .to_string()
        .starts_with(&format!("{}: cannot read the file", missing.display())));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Wraps zone content into a platform whose zone starts on line 2, so that
/// the content's first line is line 3.
fn zone(content: &str) -> String {
    format!("<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n{content}\n</zone></platform>")
}

const HOSTS: &str = "<host id=\"a\" speed=\"1Gf\"/><host id=\"b\" speed=\"1Gf\"/>";

/// Every malformed input gives `bad.xml:<line>: <problem>`.
#[test]
fn malformed_inputs() {
    let cases: Vec<(String, u32, &str)> = vec![
        ("<platform".into(), 1, "malformed XML"),
        ("<platform version=\"4.1\"></zone>".into(), 1, "malformed XML"),
        ("<foo/>".into(), 1, "the root element is <foo>, expected <platform>"),
        ("<platform/>".into(), 1, "<platform>: missing required attribute 'version'"),
        ("<platform version=\"3\"/>".into(), 1, "version '3' is not supported"),
        ("<platform version=\"4.1\" x=\"1\"/>".into(), 1, "unknown attribute 'x'"),
        ("<platform version=\"4.1\"/>".into(), 1, "the platform has no <zone> or <cluster>"),
        ("<platform version=\"4.1\">\n<foo/></platform>".into(), 2, "unknown element <foo> in <platform>"),
        ("<platform version=\"4.1\">\nhello<zone id=\"z\" routing=\"Full\"/></platform>".into(), 1, "unexpected text 'hello' in <platform>"),
        ("<platform version=\"4.1\"><zone id=\"a\" routing=\"Full\"/>\n<zone id=\"b\" routing=\"Full\"/></platform>".into(), 2, "more than one top-level <zone> or <cluster> (nested zones) is not supported yet"),
        ("<platform version=\"4.1\">\n<trace id=\"t\" periodicity=\"1\"/></platform>".into(), 2, "<trace> is not supported yet"),
        ("<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Vivaldi\"/></platform>".into(), 2, "zone 'z': routing=\"Vivaldi\" (Full, Floyd, Dijkstra and None are supported) is not supported yet"),
        ("<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Bogus\"/></platform>".into(), 2, "zone 'z': routing 'Bogus': expected Full, Floyd"),
        ("<platform version=\"4.1\">\n<zone id=\"z\"/></platform>".into(), 2, "zone 'z': missing required attribute 'routing'"),
        ("<platform version=\"4.1\">\n<zone routing=\"Full\"/></platform>".into(), 2, "<zone>: missing required attribute 'id'"),
        (zone("<foo/>"), 3, "unknown element <foo> in <zone>"),
        (zone("<zone id=\"in\" routing=\"Full\"/>\n<zoneRoute src=\"in\" dst=\"out\" gw_src=\"a\" gw_dst=\"b\"/>"), 4, "zone route from 'in' to 'out': no zone or cluster 'out' (yet)"),
        (zone("<zone id=\"in\" routing=\"Full\"><host id=\"a\" speed=\"1Gf\"/></zone><host id=\"b\" speed=\"1Gf\"/><link id=\"l\" bandwidth=\"1GBps\"/>\n<route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></route>"), 4, "route from 'a' to 'b': 'a' is not in zone 'z' (a route joins hosts or routers of its own zone; between zones, use <zoneRoute>)"),
        (zone("<zone id=\"in\" routing=\"Full\"><host id=\"a\" speed=\"1Gf\"/></zone><zone id=\"in2\" routing=\"Full\"><router id=\"r\"/></zone>\n<zoneRoute src=\"in\" dst=\"in2\" gw_src=\"r\" gw_dst=\"r\"/>"), 4, "zone route from 'in' to 'in2': gateway 'r' is not inside zone 'in'"),
        (zone("<host id=\"r\" speed=\"1Gf\"/>\n<router id=\"r\"/>"), 4, "duplicate router name 'r'"),
        (zone("<zone id=\"z\" routing=\"Full\"/>"), 3, "duplicate zone name 'z'"),
        (zone("<host id=\"a\" speed=\"1Gf\" color=\"red\"/>"), 3, "<host>: unknown attribute 'color' (expected one of: id, speed, core, pstate, coordinates)"),
        (zone("<host id=\"a\"/>"), 3, "host 'a': missing required attribute 'speed'"),
        (zone("<host id=\"a\" speed=\"1Gz\"/>"), 3, "host 'a': speed '1Gz': unknown unit 'Gz' (expected f, kf,"),
        (zone("<host id=\"a\" speed=\"fast\"/>"), 3, "host 'a': speed 'fast': not a number followed by a unit (expected something like '1Gf')"),
        (zone("<host id=\"a\" speed=\"-1Gf\"/>"), 3, "host 'a': speed '-1Gf': the value must be a finite number >= 0"),
        (zone("<host id=\"a\" speed=\"1Gf,2Gz\"/>"), 3, "host 'a': speed '2Gz': unknown unit 'Gz'"),
        (zone("<host id=\"a\" speed=\"1Gf,0f\"/>"), 3, "host 'a': speed '0f' is zero"),
        (zone("<host id=\"a\" speed=\"1Gf\" pstate=\"1\"/>"), 3, "host 'a': pstate '1' is not one of its power states: its speed lists 1, numbered from 0"),
        (zone("<host id=\"a\" speed=\"1Gf,2Gf\" pstate=\"-1\"/>"), 3, "host 'a': pstate '-1' is not one of its power states: its speed lists 2"),
        (zone("<host id=\"a\" speed=\"1Gf\" core=\"0\"/>"), 3, "host 'a': core '0': expected a whole number of cores >= 1"),
        (zone("<host id=\"a\" speed=\"1Gf\" speed_file=\"f\"/>"), 3, "<host>: attribute 'speed_file' (speed profiles) is not supported yet"),
        (zone("<host id=\"a\" speed=\"1Gf\"><disk id=\"d\" read_bw=\"1MBps\"/></host>"), 3, "disk 'd': missing required attribute 'write_bw'"),
        (zone("<host id=\"a\" speed=\"1Gf\"><disk id=\"d\" read_bw=\"1MBps\" write_bw=\"1MBps\"><prop id=\"size\" value=\"5GiBs\"/></disk></host>"), 3, "disk 'd': size '5GiBs': unknown unit 'GiBs' (expected B, kB,"),
        (zone("<host id=\"a\" speed=\"1Gf\"><disk id=\"d\" read_bw=\"1MBps\" write_bw=\"1MBps\"/><disk id=\"d\" read_bw=\"1MBps\" write_bw=\"1MBps\"/></host>"), 3, "duplicate disk name 'd'"),
        (zone("<host id=\"a\" speed=\"1Gf\"><prop id=\"x\"/></host>"), 3, "prop 'x': missing required attribute 'value'"),
        (zone("<host id=\"a\" speed=\"1Gf\"/>\n<host id=\"a\" speed=\"2Gf\"/>"), 4, "duplicate host name 'a' (first defined at line 3)"),
        (zone("<link id=\"l3\" bandwidth=\"10Gbs\"/>"), 3, "link 'l3': bandwidth '10Gbs': unknown unit 'Gbs' (expected Bps, bps, kBps,"),
        (zone("<link id=\"l\" bandwidth=\"1GBps\" latency=\"1sec\"/>"), 3, "link 'l': latency '1sec': unknown unit 'sec' (expected s, ms, us, ns, ps, m, h, d, w)"),
        (zone("<link id=\"l\"/>"), 3, "link 'l': missing required attribute 'bandwidth'"),
        (zone("<link id=\"l\" bandwidth=\"1GBps\" sharing_policy=\"shared\"/>"), 3, "link 'l': sharing_policy 'shared': expected SHARED or SPLITDUPLEX or FATPIPE"),
        (zone("<link id=\"l\" bandwidth=\"1GBps\" sharing_policy=\"WIFI\"/>"), 3, "link 'l': sharing_policy=\"WIFI\" is not supported yet"),
        (zone("<link id=\"l\" bandwidth=\"1GBps\"/>\n<link id=\"l\" bandwidth=\"1GBps\"/>"), 4, "duplicate link name 'l' (clashes with link 'l' defined at line 3)"),
        (zone("<link id=\"s\" bandwidth=\"1GBps\" sharing_policy=\"SPLITDUPLEX\"/>\n<link id=\"s_UP\" bandwidth=\"1GBps\"/>"), 4, "duplicate link name 's_UP' (clashes with link 's' defined at line 3)"),
        (zone("<link id=\"s_DOWN\" bandwidth=\"1GBps\"/>\n<link id=\"s\" bandwidth=\"1GBps\" sharing_policy=\"SPLITDUPLEX\"/>"), 4, "duplicate link name 's' (clashes with link 's_DOWN'"),
        (zone("<link id=\"__loopback__\" bandwidth=\"1GBps\"/>"), 3, "duplicate link name '__loopback__' (the name of SimGrid's global loopback link)"),
        (zone("<link id=\"l\" bandwidth=\"1GBps\" state_file=\"f\"/>"), 3, "attribute 'state_file' (state profiles) is not supported yet"),
        (zone(&format!("{HOSTS}<link id=\"l\" bandwidth=\"1GBps\"/>\n<route src=\"a\" dst=\"x\"><link_ctn id=\"l\"/></route>")), 4, "route from 'a' to 'x': unknown host 'x'"),
        (zone(&format!("{HOSTS}\n<route src=\"a\" dst=\"b\"><link_ctn id=\"nope\"/></route>")), 4, "route from 'a' to 'b': unknown link 'nope'"),
        (zone(&format!("{HOSTS}<link id=\"l\" bandwidth=\"1GBps\" sharing_policy=\"SPLITDUPLEX\"/>\n<route src=\"a\" dst=\"b\">\n<link_ctn id=\"l\"/></route>")), 5, "route from 'a' to 'b': link 'l' is SPLITDUPLEX: its <link_ctn> needs direction=\"UP\" or direction=\"DOWN\""),
        (zone(&format!("{HOSTS}<link id=\"l\" bandwidth=\"1GBps\"/>\n<route src=\"a\" dst=\"b\"><link_ctn id=\"l\" direction=\"LEFT\"/></route>")), 4, "link 'l': direction 'LEFT': expected UP, DOWN or NONE"),
        (zone(&format!("{HOSTS}\n<route src=\"a\" dst=\"b\"/>")), 4, "route from 'a' to 'b': a route needs at least one <link_ctn>"),
        (zone(&format!("{HOSTS}<link id=\"l\" bandwidth=\"1GBps\"/>\n<route src=\"a\" dst=\"b\" symmetrical=\"maybe\"><link_ctn id=\"l\"/></route>")), 4, "symmetrical 'maybe': expected YES or NO"),
        (zone(&format!("{HOSTS}<link id=\"l\" bandwidth=\"1GBps\"/><route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></route>\n<route src=\"b\" dst=\"a\"><link_ctn id=\"l\"/></route>")), 4, "route from 'b' to 'a': the route from 'b' to 'a' is already defined (routes are symmetrical unless"),
        (zone(&format!("{HOSTS}<link id=\"l\" bandwidth=\"1GBps\"/><route src=\"a\" dst=\"b\" symmetrical=\"NO\"><link_ctn id=\"l\"/></route>\n<route src=\"a\" dst=\"b\" symmetrical=\"NO\"><link_ctn id=\"l\"/></route>")), 4, "the route from 'a' to 'b' is already defined"),
        (zone(&format!("{HOSTS}<link id=\"l\" bandwidth=\"1GBps\"/><route src=\"b\" dst=\"a\" symmetrical=\"NO\"><link_ctn id=\"l\"/></route>\n<route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></route>")), 4, "route from 'a' to 'b': the route from 'b' to 'a' is already defined"),
        (zone(&format!("<link id=\"l\" bandwidth=\"1GBps\"/>\n<route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></route>{HOSTS}")), 4, "unknown host 'a'"),
        (zone(&format!("{HOSTS}<link id=\"l\" bandwidth=\"1GBps\"/><route src=\"a\" dst=\"b\">\n<foo/></route>")), 4, "unknown element <foo> in <route>"),
        ("<platform version=\"4.1\">\n<zone id=\"z\" routing=\"None\"><host id=\"a\" speed=\"1Gf\"/><link id=\"l\" bandwidth=\"1GBps\"/>\n<route src=\"a\" dst=\"a\"><link_ctn id=\"l\"/></route></zone></platform>".into(), 3, "zone 'z' has routing=\"None\", which takes no <route>"),
        ("<platform version=\"4.1\"><config>\n<foo/></config><zone id=\"z\" routing=\"None\"/></platform>".into(), 2, "unknown element <foo> in <config>"),
    ];
    let cluster = |attrs: &str| {
        format!("<platform version=\"4.1\">\n<cluster id=\"c\" prefix=\"n\" suffix=\"\" speed=\"1Gf\" bw=\"1GBps\" lat=\"1us\" {attrs}/></platform>")
    };
    let cluster_cases: Vec<(String, u32, &str)> = vec![
        (cluster("radical=\"0-2\" topology=\"TORUS\" topo_parameters=\"2,2\""), 2, "cluster 'c': radical '0-2': expected 4 values, one per node of the TORUS topology (it has 3)"),
        (cluster("radical=\"0-3\" topology=\"FAT_TREE\" topo_parameters=\"1;4\""), 2, "cluster 'c': topo_parameters '1;4': expected 4 parts separated by ';', not 2; FAT_TREE takes"),
        (cluster("radical=\"0-3\" topology=\"RING\""), 2, "cluster 'c': topology 'RING': expected FLAT, TORUS, FAT_TREE or DRAGONFLY"),
        (cluster(""), 2, "cluster 'c': missing required attribute 'radical'"),
        (cluster("radical=\"0-x\""), 2, "cluster 'c': radical '0-x': expected numbers and low-high ranges"),
        (cluster("radical=\"3-1\""), 2, "cluster 'c': radical '3-1': expected ranges written low-high"),
        (cluster("radical=\"0-99999999\""), 2, "radical '0-99999999': expected at most 16777216 hosts"),
        (cluster("radical=\"0,1,0\""), 2, "duplicate host name 'n0' (first defined at line 2)"),
        (cluster("radical=\"0\" core=\"x\""), 2, "cluster 'c': core 'x': expected a whole number of cores >= 1"),
        (cluster("radical=\"0\" sharing_policy=\"WIFI\""), 2, "sharing_policy=\"WIFI\" is not supported yet"),
        (cluster("radical=\"0\" bb_sharing_policy=\"SPLITDUPLEX\""), 2, "cluster 'c': bb_sharing_policy 'SPLITDUPLEX': expected SHARED or FATPIPE"),
        (cluster("radical=\"0\" bb_bw=\"1Gbs\""), 2, "cluster 'c': bb_bw '1Gbs': unknown unit 'Gbs'"),
        (cluster("radical=\"0\" bb_lat=\"1us\""), 2, "cluster 'c': bb_lat is given without a positive bb_bw"),
        (cluster("radical=\"0\" loopback_lat=\"1us\""), 2, "cluster 'c': loopback_lat is given without a positive loopback_bw"),
        (cluster("radical=\"0\" limiter_link=\"fast\""), 2, "cluster 'c': limiter_link 'fast': not a number"),
        (cluster("radical=\"0\" color=\"red\""), 2, "<cluster>: unknown attribute 'color'"),
        ("<platform version=\"4.1\">\n<cluster id=\"c\" suffix=\"\" radical=\"0\" speed=\"1Gf\" bw=\"1GBps\" lat=\"1us\"/></platform>".into(), 2, "cluster 'c': missing required attribute 'prefix'"),
        ("<platform version=\"4.1\"><cluster id=\"c\" prefix=\"\" suffix=\"\" radical=\"0\" speed=\"1Gf\" bw=\"1GBps\" lat=\"1us\">\n<router id=\"r\"/></cluster></platform>".into(), 2, "unknown element <router> in <cluster>"),
    ];
    for (xml, line, needle) in cases.into_iter().chain(cluster_cases) {
        let e = match Platform::from_xml_str(&xml, "bad.xml") {
            Ok(_) => panic!("accepted:\n{xml}"),
            Err(e) => e,
        };
        let msg = e.to_string();
        let prefix = format!("bad.xml:{line}: ");
        assert!(
            msg.starts_with(&prefix),
            "want line {line}, got: {msg}\n{xml}"
        );
        assert!(msg.contains(needle), "want '{needle}', got: {msg}\n{xml}");
        assert_eq!(e.line(), Some(line));
        assert!(e.problem().is_some());
    }
}

#[test]
fn errors_are_typed() {
    let e = Platform::from_xml_str(&zone("<link id=\"l3\" bandwidth=\"10Gbs\"/>"), "my.xml")
        .unwrap_err();
    match e.problem() {
        Some(Problem::BadQuantity {
            element,
            attribute,
            error,
        }) => {
            assert_eq!((element.as_str(), *attribute), ("link 'l3'", "bandwidth"));
            assert_eq!(error.text, "10Gbs");
        }
        other => panic!("{other:?}"),
    }
    assert!(e.to_string().starts_with(
        "my.xml:3: link 'l3': bandwidth '10Gbs': unknown unit 'Gbs' (expected Bps, bps, kBps, "
    ));
}

#[test]
fn cluster_hosts_have_the_clusters_pstates_and_properties() {
    let p = load(
        r#"<platform version="4.1"><zone id="z" routing="Full">
<cluster id="c" prefix="n-" suffix="" radical="0-1" speed="2Gf,1Gf,0.5Gf" core="4" bw="1GBps" lat="1us">
  <prop id="wattage_per_state" value="90:100:200, 80:90:150, 70:75:100"/>
</cluster></zone></platform>"#,
    );
    let n = p.host(host(&p, "n-1"));
    assert_eq!((n.speed, n.pstate, n.cores), (2e9, 0, 4));
    assert_eq!(n.pstate_speeds(), [2e9, 1e9, 5e8]);
    assert_eq!(
        n.properties,
        [(
            "wattage_per_state".to_string(),
            "90:100:200, 80:90:150, 70:75:100".to_string()
        )]
    );
}

#[test]
fn disks_belong_to_their_hosts_with_bandwidths_size_and_mount() {
    let p = load(
        r#"<platform version="4.1"><zone id="z" routing="Full">
        <host id="bob" speed="1Gf">
          <prop id="ram" value="100B"/>
          <disk id="Disk1" read_bw="100MBps" write_bw="40MBps">
            <prop id="size" value="500GiB"/><prop id="mount" value="/scratch"/>
          </disk>
          <disk id="Disk2" read_bw="200MBps" write_bw="80MBps"/>
        </host>
        <host id="carl" speed="1Gf"/>
        <host id="alice" speed="1Gf"><disk id="Disk1" read_bw="1GBps" write_bw="2Gbps"/></host>
        </zone></platform>"#,
    );
    let bob = p.disks_of(host(&p, "bob"));
    assert_eq!(bob.len(), 2);
    assert_eq!(bob[0].name, "Disk1");
    assert_eq!(bob[0].read_bw, 100e6);
    assert_eq!(bob[0].write_bw, 40e6);
    assert_eq!(bob[0].size, Some(500.0 * 1024f64.powi(3)));
    assert_eq!(bob[0].mount.as_deref(), Some("/scratch"));
    assert_eq!(
        (bob[1].name.as_str(), bob[1].mount.as_deref()),
        ("Disk2", None)
    );
    assert!(p.disks_of(host(&p, "carl")).is_empty());
    let alice = p.disks_of(host(&p, "alice"));
    assert_eq!((alice.len(), alice[0].write_bw), (1, 0.25e9));
    assert_eq!(
        p.host(host(&p, "bob")).properties,
        vec![("ram".to_string(), "100B".to_string())]
    );
}
