//! Compact platform descriptions give exactly the `<cluster>` they stand
//! for, and refuse what they cannot mean.

use platforms::{is_compact, HostId, LinkUse, Platform};

/// Every route of `p` as link names with bandwidths and latencies.
fn all_routes(p: &Platform) -> Vec<String> {
    let n = p.hosts().len() as u32;
    let mut out: Vec<LinkUse> = Vec::new();
    let mut all = Vec::new();
    for s in 0..n {
        for d in 0..n {
            p.route(HostId(s), HostId(d), &mut out).unwrap();
            let hops: Vec<String> = out
                .iter()
                .map(|&u| {
                    let l = p.link(u.link);
                    format!("{}@{}/{}", p.link_use_name(u), l.bandwidth, l.latency)
                })
                .collect();
            all.push(format!(
                "{} {}: {}",
                p.host(HostId(s)).name,
                p.host(HostId(d)).name,
                hops.join(" ")
            ));
        }
    }
    all
}

fn xml(attrs: &str, hosts: usize) -> Platform {
    let text = format!(
        r#"<platform version="4.1"><cluster id="cluster" prefix="node-" suffix="" radical="0-{}" {attrs}/></platform>"#,
        hosts - 1
    );
    Platform::from_xml_str(&text, "same.xml").unwrap_or_else(|e| panic!("{e}"))
}

fn compact(spec: &str) -> Platform {
    assert!(is_compact(spec), "{spec}");
    Platform::from_compact(spec).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn compact_forms_equal_their_xml_clusters() {
    let cases = [
        (
            "torus:3,2,2:bw=1.25GBps:lat=10us:speed=2Gf",
            r#"speed="2Gf" bw="1.25GBps" lat="10us" topology="TORUS" topo_parameters="3,2,2""#,
            12,
        ),
        (
            "fat-tree:2;4,4;1,2;1,2:bw=10Gbps:lat=24us:sharing=SHARED",
            r#"speed="1Gf" bw="10Gbps" lat="24us" sharing_policy="SHARED" topology="FAT_TREE" topo_parameters="2;4,4;1,2;1,2""#,
            16,
        ),
        (
            "dragonfly:2,1;2,1;2,2;2:loopback_bw=5GBps:loopback_lat=0.5us",
            r#"speed="1Gf" bw="12.5GBps" lat="1us" loopback_bw="5GBps" loopback_lat="0.5us" topology="DRAGONFLY" topo_parameters="2,1;2,1;2,2;2""#,
            16,
        ),
        (
            "flat:5:bw=1.25GBps:lat=10us:bb_bw=2.5GBps:bb_lat=5us:cores=4",
            r#"speed="1Gf" core="4" bw="1.25GBps" lat="10us" bb_bw="2.5GBps" bb_lat="5us""#,
            5,
        ),
        ("flat:3", r#"speed="1Gf" bw="12.5GBps" lat="1us""#, 3),
    ];
    for (spec, attrs, hosts) in cases {
        let (a, b) = (compact(spec), xml(attrs, hosts));
        assert_eq!(a.hosts(), b.hosts(), "{spec}");
        assert_eq!(a.links(), b.links(), "{spec}");
        assert_eq!(all_routes(&a), all_routes(&b), "{spec}");
    }
    assert_eq!(compact("flat:2:prefix=h:suffix=.x").hosts()[1].name, "h1.x");
    assert_eq!(compact("fat_tree:1;2;1;1").hosts().len(), 2);
}

#[test]
fn bad_compact_forms_say_what_is_expected() {
    for (spec, expected) in [
        ("flat:0", "the number of hosts"),
        ("flat:x", "the number of hosts"),
        ("torus:4,0", "positive"),
        (
            "fat-tree:2;4,4;1,2",
            "expected 4 parts separated by ';', not 3",
        ),
        ("dragonfly:3,1;1,1;2,1;2", "at most as many groups"),
        ("torus:4:bw=10Gbs", "unknown unit"),
        ("torus:4:colour=red", "a key among bw, lat"),
        ("torus:4:bw", "key=value"),
        ("torus:4:bb_bw=1GBps", "has no backbone"),
        ("flat:4:sharing=WIFI", "SPLITDUPLEX or SHARED or FATPIPE"),
        ("flat:4:bb_sharing=SPLITDUPLEX", "SHARED or FATPIPE"),
        ("flat:4:cores=0", "cores >= 1"),
        ("flat:4:bw=0Bps", "a positive bandwidth"),
    ] {
        let e = match Platform::from_compact(spec) {
            Ok(_) => panic!("accepted {spec}"),
            Err(e) => e.to_string(),
        };
        assert!(e.starts_with(&format!("platform '{spec}': ")), "{e}");
        assert!(e.contains(expected), "{spec}: {e}");
    }
    assert!(!is_compact("platform.xml"));
    assert!(!is_compact("flat"));
    assert!(!is_compact("ring:4"));
    let e = Platform::from_compact("ring:4").err().unwrap().to_string();
    assert!(e.contains("flat, torus, fat-tree or dragonfly"), "{e}");
}
