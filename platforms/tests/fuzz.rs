//! Random and mutated inputs: the unit parser, the hostfile parser and the
//! XML loader never panic; they give a value or a typed error, and what
//! they accept is consistent.

use platforms::units::{self, Quantity};
use platforms::{parse_hostfile, Direction, HostId, Platform, PlatformError, Sharing};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

const QUANTITIES: [Quantity; 3] = [Quantity::Speed, Quantity::Bandwidth, Quantity::Time];

fn check_unit(text: &str) {
    for q in QUANTITIES {
        match units::parse(q, text) {
            Ok(p) => assert!(p.value.is_finite() && p.value >= 0.0, "{text}: {p:?}"),
            Err(e) => {
                assert_eq!(e.quantity, q);
                assert_eq!(e.text, text);
                assert!(e.to_string().contains(&format!("'{text}'")));
            }
        }
    }
}

/// Consistency of an accepted platform: routes exist or fail cleanly, and
/// split-duplex links (only they) are used with a direction.
fn check_platform(p: &Platform) {
    let n = p.hosts().len().min(40) as u32;
    let mut out = Vec::new();
    for s in 0..n {
        for d in 0..n {
            match p.route(HostId(s), HostId(d), &mut out) {
                Ok(()) => {
                    // Only a torus host talks to itself without a link.
                    assert!(!out.is_empty() || s == d);
                    for u in &out {
                        let split = p.link(u.link).sharing == Sharing::SplitDuplex;
                        assert_eq!(split, u.direction != Direction::None, "{u:?}");
                    }
                }
                Err(e) => {
                    assert!(out.is_empty());
                    assert_eq!(e.src, p.host(HostId(s)).name);
                    assert_eq!(e.dst, p.host(HostId(d)).name);
                }
            }
        }
    }
    for (i, h) in p.hosts().iter().enumerate() {
        assert_eq!(p.host_by_name(&h.name), Some(HostId(i as u32)));
    }
    assert!(!p.describe().is_empty());
    let _ = p.check_routes();
}

fn check_xml(text: &str) {
    match Platform::from_xml_str(text, "fuzz.xml") {
        Ok(p) => check_platform(&p),
        Err(e) => {
            let msg = e.to_string();
            assert!(msg.starts_with("fuzz.xml:"), "{msg}");
            assert!(matches!(e, PlatformError::Invalid { .. }));
        }
    }
}

const SEEDS: &[&str] = &[
    r#"<platform version="4.1"><zone id="zone0" routing="Full"><host id="host0" speed="1Gf"/><host id="host1" speed="1Gf"/><link id="link0" bandwidth="1.25GBps" latency="10us"/><route src="host0" dst="host1"><link_ctn id="link0"/></route></zone></platform>"#,
    r#"<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <config><prop id="smpi/os" value="0:0:0"/></config>
  <zone id="z" routing="Full">
    <host id="a" speed="1Gf" core="2"><prop id="k" value="v"/></host>
    <host id="b" speed="2Gf"/>
    <link id="sd" bandwidth="1GBps" latency="1us" sharing_policy="SPLITDUPLEX"/>
    <link id="fat" bandwidth="10Gbps" sharing_policy="FATPIPE"/>
    <route src="a" dst="b"><link_ctn id="sd" direction="UP"/><link_ctn id="fat"/></route>
    <route src="b" dst="b" symmetrical="NO"><link_ctn id="sd_DOWN"/></route>
  </zone>
</platform>"#,
    r#"<platform version="4.1">
  <cluster id="c" prefix="n-" suffix=".me" radical="0-3,8" speed="1Gf" bw="125MBps" lat="50us"
           bb_bw="2.25GBps" bb_lat="500us" limiter_link="1GBps" loopback_bw="100MBps" loopback_lat="0"/>
</platform>"#,
    r#"<platform version="4.1"><zone id="AS0" routing="Full">
  <cluster id="c" prefix="h" suffix="" radical="0-5" speed="1Gf" bw="1GBps" lat="1us"
           sharing_policy="SHARED" bb_bw="10GBps" bb_sharing_policy="FATPIPE"><prop id="p" value="q"/></cluster>
</zone></platform>"#,
    r#"<platform version="4.1">
  <cluster id="t" prefix="t" suffix="" radical="0-3" speed="1Gf" bw="1GBps" lat="1us" topology="TORUS" topo_parameters="2,2"/>
</platform>"#,
    r#"<platform version="4.1">
  <cluster id="f" prefix="f" suffix="" radical="0-3" speed="1Gf" bw="1GBps" lat="1us" topology="FAT_TREE" topo_parameters="2;2,2;1,2;1,2"/>
</platform>"#,
    r#"<platform version="4.1">
  <cluster id="d" prefix="d" suffix="" radical="0-7" speed="1Gf" bw="1GBps" lat="1us" topology="DRAGONFLY" topo_parameters="2,1;1,1;2,1;2"/>
</platform>"#,
    // The multi-zone platforms of the nested-zone tests.
    include_str!("data/two_clusters_and_a_zone.xml"),
    include_str!("data/nested_sites.xml"),
    include_str!("data/floyd_ring.xml"),
    include_str!("data/dijkstra_ring.xml"),
    include_str!("data/floyd_zones.xml"),
];

/// Characters inserted by mutations. Digits are left out so that a
/// mutation cannot turn `0-3` into a cluster of millions of hosts.
const INSERTABLE: &[char] = &[
    '<', '>', '/', '"', '\'', '=', ' ', '\n', '-', ',', '.', '_', '&', ';', '#', '!', '?', 'a',
    'e', 'f', 'B', 'p', 's', 'G', 'U', 'P', 'D', 'O', 'W', 'N', 'é', '\u{0}',
];

#[derive(Debug, Clone)]
enum Mutation {
    Delete(usize),
    Insert(usize, char),
    Replace(usize, char),
    Truncate(usize),
    /// Copies a slice of the text elsewhere (duplicates elements).
    Copy(usize, usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let c = proptest::sample::select(INSERTABLE);
    prop_oneof![
        any::<usize>().prop_map(Mutation::Delete),
        (any::<usize>(), c.clone()).prop_map(|(i, c)| Mutation::Insert(i, c)),
        (any::<usize>(), c).prop_map(|(i, c)| Mutation::Replace(i, c)),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), 0usize..80, any::<usize>()).prop_map(|(a, n, b)| Mutation::Copy(a, n, b)),
    ]
}

fn apply(text: &str, mutations: &[Mutation]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for m in mutations {
        let len = chars.len();
        let at = |i: usize| if len == 0 { 0 } else { i % len };
        match *m {
            Mutation::Delete(i) if len > 0 => {
                chars.remove(at(i));
            }
            Mutation::Insert(i, c) => chars.insert(if len == 0 { 0 } else { i % (len + 1) }, c),
            Mutation::Replace(i, c) if len > 0 => chars[at(i)] = c,
            Mutation::Truncate(i) => chars.truncate(if len == 0 { 0 } else { i % (len + 1) }),
            Mutation::Copy(from, n, to) if len > 0 => {
                let start = at(from);
                let end = (start + n).min(len);
                let piece: Vec<char> = chars[start..end].to_vec();
                let to = to % (len + 1);
                chars.splice(to..to, piece);
            }
            _ => {}
        }
    }
    chars.into_iter().collect()
}

/// Picks `good` most of the time and one of `bad` otherwise, so that
/// generated platforms are often valid yet every check gets exercised.
fn mostly(good: &'static str, bad: Vec<&'static str>) -> impl Strategy<Value = &'static str> {
    prop_oneof![12 => Just(good), 1 => prop::sample::select(bad)]
}

fn host_element(i: u8) -> impl Strategy<Value = String> {
    mostly("1Gf", vec!["1e9", "0", "-1f", "x", "2Mf,1Mf"])
        .prop_map(move |s| format!("<host id=\"h{i}\" speed=\"{s}\"/>"))
}

fn link_element(i: u8) -> impl Strategy<Value = String> {
    (
        mostly("1GBps", vec!["10Gbps", "5", "1Gbs"]),
        prop_oneof![
            12 => prop::sample::select(vec!["SHARED", "SPLITDUPLEX", "FATPIPE"]),
            1 => prop::sample::select(vec!["FULLDUPLEX", "bad"]),
        ],
    )
        .prop_map(move |(bw, pol)| {
            format!(
                "<link id=\"l{i}\" bandwidth=\"{bw}\" latency=\"1us\" sharing_policy=\"{pol}\"/>"
            )
        })
}

/// Elements with ids among `0..4`, mostly distinct (with a duplicate one
/// time in ten).
fn numbered<S: Strategy<Value = String>>(make: fn(u8) -> S) -> impl Strategy<Value = Vec<String>> {
    (
        prop::sample::subsequence(vec![0u8, 1, 2, 3], 2..=4),
        prop::option::weighted(0.1, 0..4u8),
    )
        .prop_flat_map(move |(ids, duplicate)| {
            ids.into_iter()
                .chain(duplicate)
                .map(make)
                .collect::<Vec<_>>()
        })
}

fn route_element() -> impl Strategy<Value = String> {
    let ctn = (
        prop_oneof![
            12 => prop::sample::select(vec!["l0", "l1", "l2", "l3", "l0_UP", "l1_DOWN"]),
            1 => Just("zz"),
        ],
        prop::sample::select(vec![
            "",
            " direction=\"UP\"",
            " direction=\"DOWN\"",
            " direction=\"NONE\"",
        ]),
    )
        .prop_map(|(id, dir)| format!("<link_ctn id=\"{id}\"{dir}/>"));
    (
        0..4u8,
        0..4u8,
        prop::sample::select(vec!["", " symmetrical=\"NO\"", " symmetrical=\"yes\""]),
        prop::collection::vec(ctn, 1..4),
    )
        .prop_map(|(s, d, sym, ctns)| {
            format!(
                "<route src=\"h{s}\" dst=\"h{d}\"{sym}>{}</route>",
                ctns.concat()
            )
        })
}

/// Small zones (hosts, then links, then routes, as files are written)
/// from a vocabulary of elements with clashing names and odd values, to
/// exercise the semantic checks rather than the XML parser.
fn zone_content() -> impl Strategy<Value = String> {
    (
        numbered(host_element),
        numbered(link_element),
        prop::collection::vec(route_element(), 0..7),
    )
        .prop_map(|(hosts, links, routes)| [hosts, links, routes].concat().join("\n"))
}

proptest! {
    #![proptest_config(ProptestConfig {
        rng_seed: RngSeed::Fixed(0x5eed),
        ..ProptestConfig::default()
    })]

    #[test]
    fn units_never_panic(text in any::<String>()) {
        check_unit(&text);
    }

    #[test]
    fn unit_like_text_never_panics(text in "[ +\\-0-9.eE]{0,12}[a-zA-Z]{0,9}") {
        check_unit(&text);
    }

    #[test]
    fn formatted_bandwidths_read_back(mantissa in 1u32..1_000_000, exp in 0i32..18) {
        let value = f64::from(mantissa) * 10f64.powi(exp);
        let back = units::parse_bandwidth(&units::format_bandwidth(value)).unwrap();
        prop_assert!((back - value).abs() <= 1e-5 * value);
    }

    #[test]
    fn hostfiles_never_panic(text in any::<String>()) {
        match parse_hostfile(&text, "h.txt") {
            Ok(entries) => {
                prop_assert!(!entries.is_empty());
                for e in entries {
                    prop_assert!(e.slots >= 1);
                    prop_assert!(!e.name.is_empty());
                    prop_assert!(!e.name.contains(char::is_whitespace));
                }
            }
            Err(e) => prop_assert!(e.to_string().starts_with("h.txt:")),
        }
    }

    #[test]
    fn hostfile_like_text_never_panics(text in "([a-z0-9\\-]{0,6}(:[0-9x]{0,3})?( ?#[a-z ]*)?\n){0,6}") {
        if let Err(e) = parse_hostfile(&text, "h.txt") {
            prop_assert!(e.to_string().starts_with("h.txt:"));
        }
    }

    #[test]
    fn arbitrary_text_is_not_a_platform_but_no_panic(text in any::<String>()) {
        check_xml(&text);
    }

    #[test]
    fn mutated_platforms_never_panic(
        seed in 0..SEEDS.len(),
        mutations in prop::collection::vec(mutation(), 1..6),
    ) {
        check_xml(&apply(SEEDS[seed], &mutations));
    }

    #[test]
    fn generated_zones_never_panic(
        content in zone_content(),
        routing in mostly("Full", vec!["None", "Floyd", "Dijkstra"]),
    ) {
        let xml = format!(
            "<platform version=\"4.1\"><zone id=\"z\" routing=\"{routing}\">{content}</zone></platform>"
        );
        check_xml(&xml);
    }
}

#[test]
fn seeds_are_valid_platforms() {
    for seed in SEEDS {
        let p = Platform::from_xml_str(seed, "seed.xml").unwrap_or_else(|e| panic!("{e}"));
        check_platform(&p);
    }
}

/// Runs `test` on values of `strategy`, in rounds of 256 cases with a
/// fixed seed per round (a failure is reproducible), for
/// `SMPI_FUZZ_SECONDS` seconds (CI gives each fuzzer a minute) or one
/// round. A panic inside `test` fails with the smallest input proptest
/// finds.
fn fuzz_for_budget<S>(name: &str, strategy: S, test: impl Fn(S::Value))
where
    S: Strategy,
    S::Value: std::fmt::Debug,
{
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    let seconds = std::env::var("SMPI_FUZZ_SECONDS")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or(0);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
    let mut round: u64 = 0;
    loop {
        let mut seed = [0u8; 32];
        seed[..8].copy_from_slice(&round.to_le_bytes());
        let config = Config {
            cases: 256,
            failure_persistence: None,
            ..Config::default()
        };
        let mut runner =
            TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed));
        if let Err(e) = runner.run(&strategy, |v| {
            test(v);
            Ok(())
        }) {
            panic!("{name}, round {round}: {e}");
        }
        round += 1;
        if std::time::Instant::now() >= deadline {
            break;
        }
    }
    eprintln!("{name}: {} cases", round * 256);
}

/// Compact descriptions that load, as seeds for mutations.
const COMPACT_SEEDS: &[&str] = &[
    "flat:4",
    "flat:5:bw=1.25GBps:lat=10us:bb_bw=2.5GBps:bb_lat=5us:cores=4",
    "flat:3:sharing=SHARED:speed=2Gf:loopback_bw=1GBps:loopback_lat=1us:prefix=h:suffix=.x",
    "torus:2,2,2:bw=10Gbps",
    "fat-tree:2;4,4;1,2;1,2:lat=2us",
    "dragonfly:2,1;2,1;2,2;2:bw=12.5GBps",
];

/// Characters compact mutations insert (digits stay out, so that a
/// mutation cannot ask for millions of hosts).
const COMPACT_INSERTABLE: &[char] = &[
    ':', ';', ',', '=', '.', '-', '_', 'a', 'b', 'w', 'G', 'f', 's', 'p', ' ', '\u{0}', 'é',
];

fn check_compact(text: &str) {
    match Platform::from_compact(text) {
        Ok(p) => check_platform(&p),
        Err(e) => {
            let msg = e.to_string();
            assert!(
                matches!(e, PlatformError::Compact { .. }),
                "{text}: not a compact-platform error: {msg}"
            );
            assert!(!msg.is_empty());
        }
    }
}

#[test]
fn timed_mutated_platforms_never_panic() {
    let strategy = (0..SEEDS.len(), prop::collection::vec(mutation(), 1..6));
    fuzz_for_budget("XML platforms", strategy, |(seed, mutations)| {
        check_xml(&apply(SEEDS[seed], &mutations));
    });
}

#[test]
fn timed_compact_descriptions_never_panic() {
    let edit = (0usize..64, 0usize..COMPACT_INSERTABLE.len(), 0u8..3);
    let strategy = (
        0..COMPACT_SEEDS.len(),
        prop::collection::vec(edit, 0..5),
        "[a-z\\-]{0,10}:[0-9,;]{0,8}(:[a-z_]{0,8}=[0-9a-zA-Z.]{0,6}){0,3}",
    );
    fuzz_for_budget("compact platforms", strategy, |(seed, edits, free)| {
        let mut text: Vec<char> = COMPACT_SEEDS[seed].chars().collect();
        for (at, c, kind) in edits {
            let at = at % (text.len() + 1);
            match kind {
                0 => text.insert(at, COMPACT_INSERTABLE[c]),
                1 if at < text.len() => {
                    text.remove(at);
                }
                _ => text.truncate(at),
            }
        }
        check_compact(&text.into_iter().collect::<String>());
        check_compact(&free);
    });
}

#[test]
fn timed_hostfiles_never_panic() {
    let strategy = (
        any::<String>(),
        "([a-z0-9\\-]{0,6}(:[0-9x\\-]{0,4})?( ?#[a-z ]*)?\n){0,6}",
    );
    fuzz_for_budget("hostfiles", strategy, |(any_text, like)| {
        for text in [any_text, like] {
            match parse_hostfile(&text, "h.txt") {
                Ok(entries) => {
                    assert!(!entries.is_empty());
                    assert!(entries.iter().all(|e| e.slots >= 1 && !e.name.is_empty()));
                }
                Err(e) => assert!(e.to_string().starts_with("h.txt:"), "{e}"),
            }
        }
    });
}
