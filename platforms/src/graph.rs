//! Floyd and Dijkstra zones: routes are declared between neighbouring
//! points (hosts, routers, nested zones) only, and a route between any two
//! is the shortest chain of declared ones, counting links, as SimGrid 3.32
//! computes it (`FloydZone`, `DijkstraZone`), ties included:
//!
//! * Floyd: Floyd-Warshall over the zone's points in creation order, an
//!   improvement only when strictly shorter; the whole table at load time,
//!   so it costs (points)^2 memory and (points)^3 time.
//! * Dijkstra: from the source, over the points in the order routes first
//!   named them, each point's routes in declaration order, the queue by
//!   (cost, point); on demand, remembered per source.
//!
//! A point without a declared route to itself gets the global loopback
//! link (SimGrid's base routing does the same).

use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rustc_hash::FxHashMap as HashMap;

use crate::model::LinkUse;
use crate::platform::{FullRoutes, Point};

const NONE: u32 = u32::MAX;

/// One declared route, as the zone's graph holds it.
#[derive(Debug, Clone)]
pub(crate) struct Hop {
    pub links: Box<[LinkUse]>,
    pub gateways: Option<(Point, Point)>,
}

#[derive(Debug)]
enum Strategy {
    /// Predecessor of b on the shortest path from a, at a * n + b.
    Floyd { pred: Vec<u32> },
    /// Out-edges of each node (target node, in declaration order), and the
    /// predecessor arrays computed so far, by source node.
    Dijkstra {
        out: Vec<Vec<u32>>,
        cache: RefCell<HashMap<u32, Vec<u32>>>,
    },
}

/// The routes of a Floyd or Dijkstra zone.
#[derive(Debug)]
pub(crate) struct GraphRoutes {
    /// The graph's nodes (Floyd: the zone's points in creation order;
    /// Dijkstra: in the order routes first named them).
    nodes: Vec<Point>,
    index: HashMap<Point, u32>,
    /// Declared routes by (node, node).
    hops: HashMap<(u32, u32), Hop>,
    strategy: Strategy,
    floyd: bool,
}

impl Clone for GraphRoutes {
    fn clone(&self) -> Self {
        GraphRoutes {
            nodes: self.nodes.clone(),
            index: self.index.clone(),
            hops: self.hops.clone(),
            strategy: match &self.strategy {
                Strategy::Floyd { pred } => Strategy::Floyd { pred: pred.clone() },
                Strategy::Dijkstra { out, cache } => Strategy::Dijkstra {
                    out: out.clone(),
                    cache: RefCell::new(cache.borrow().clone()),
                },
            },
            floyd: self.floyd,
        }
    }
}

impl GraphRoutes {
    /// Floyd routing over `points` (the zone's, in creation order) with the
    /// declared `routes`; `loopback` is the route a point takes to itself
    /// when none is declared.
    pub fn floyd(points: &[Point], routes: &FullRoutes, loopback: LinkUse) -> GraphRoutes {
        let n = points.len();
        let index: HashMap<Point, u32> = points
            .iter()
            .enumerate()
            .map(|(i, &p)| (p, i as u32))
            .collect();
        let mut hops = HashMap::default();
        let mut cost = vec![u64::MAX; n * n];
        let mut pred = vec![NONE; n * n];
        for (src, dst, links, gateways) in routes.declared() {
            let (Some(&a), Some(&b)) = (index.get(&src), index.get(&dst)) else {
                continue;
            };
            cost[a as usize * n + b as usize] = links.len() as u64;
            pred[a as usize * n + b as usize] = a;
            hops.insert(
                (a, b),
                Hop {
                    links: links.into(),
                    gateways,
                },
            );
        }
        for i in 0..n {
            if pred[i * n + i] == NONE {
                cost[i * n + i] = 1;
                pred[i * n + i] = i as u32;
                hops.insert(
                    (i as u32, i as u32),
                    Hop {
                        links: Box::new([loopback]),
                        gateways: None,
                    },
                );
            }
        }
        for c in 0..n {
            for a in 0..n {
                let ac = cost[a * n + c];
                if ac == u64::MAX {
                    continue;
                }
                for b in 0..n {
                    let cb = cost[c * n + b];
                    if cb < u64::MAX && (cost[a * n + b] == u64::MAX || ac + cb < cost[a * n + b]) {
                        cost[a * n + b] = ac + cb;
                        pred[a * n + b] = pred[c * n + b];
                    }
                }
            }
        }
        GraphRoutes {
            nodes: points.to_vec(),
            index,
            hops,
            strategy: Strategy::Floyd { pred },
            floyd: true,
        }
    }

    /// Dijkstra routing over the points the declared `routes` name.
    pub fn dijkstra(routes: &FullRoutes, loopback: LinkUse) -> GraphRoutes {
        let mut nodes = Vec::new();
        let mut index: HashMap<Point, u32> = HashMap::default();
        let mut out: Vec<Vec<u32>> = Vec::new();
        let mut hops = HashMap::default();
        let mut node = |p: Point, nodes: &mut Vec<Point>, out: &mut Vec<Vec<u32>>| -> u32 {
            *index.entry(p).or_insert_with(|| {
                nodes.push(p);
                out.push(Vec::new());
                (nodes.len() - 1) as u32
            })
        };
        for (src, dst, links, gateways) in routes.declared() {
            let a = node(src, &mut nodes, &mut out);
            let b = node(dst, &mut nodes, &mut out);
            out[a as usize].push(b);
            hops.insert(
                (a, b),
                Hop {
                    links: links.into(),
                    gateways,
                },
            );
        }
        for (i, edges) in out.iter_mut().enumerate() {
            let i = i as u32;
            if !edges.contains(&i) {
                edges.push(i);
                hops.insert(
                    (i, i),
                    Hop {
                        links: Box::new([loopback]),
                        gateways: None,
                    },
                );
            }
        }
        GraphRoutes {
            nodes,
            index,
            hops,
            strategy: Strategy::Dijkstra {
                out,
                cache: RefCell::new(HashMap::default()),
            },
            floyd: false,
        }
    }

    /// `"Floyd"` or `"Dijkstra"`, for messages.
    pub fn kind(&self) -> &'static str {
        if self.floyd {
            "Floyd"
        } else {
            "Dijkstra"
        }
    }

    /// Whether SimGrid lists each hop's links in reverse (Dijkstra).
    pub fn reverses_hops(&self) -> bool {
        !self.floyd
    }

    /// The hops of the shortest route from `src` to `dst`, in order, or
    /// `None` when there is none.
    pub fn hops(&self, src: Point, dst: Point) -> Option<Vec<&Hop>> {
        let (&s, &d) = (self.index.get(&src)?, self.index.get(&dst)?);
        let n = self.nodes.len();
        let mut chain = Vec::new();
        match &self.strategy {
            Strategy::Floyd { pred } => {
                let mut cur = d;
                loop {
                    let p = pred[s as usize * n + cur as usize];
                    if p == NONE {
                        return None;
                    }
                    chain.push(self.hops.get(&(p, cur))?);
                    cur = p;
                    if cur == s {
                        break;
                    }
                }
            }
            Strategy::Dijkstra { out, cache } => {
                if s == d {
                    return Some(vec![self.hops.get(&(s, s))?]);
                }
                let mut cache = cache.borrow_mut();
                let pred = cache
                    .entry(s)
                    .or_insert_with(|| dijkstra(out, &self.hops, s));
                let mut cur = d;
                while cur != s {
                    let p = pred[cur as usize];
                    if p == NONE {
                        return None;
                    }
                    chain.push(self.hops.get(&(p, cur))?);
                    cur = p;
                }
            }
        }
        chain.reverse();
        Some(chain)
    }
}

/// Predecessors on the shortest paths from node `s` (NONE: unreachable).
fn dijkstra(out: &[Vec<u32>], hops: &HashMap<(u32, u32), Hop>, s: u32) -> Vec<u32> {
    let n = out.len();
    let mut cost = vec![u64::MAX; n];
    let mut pred = vec![NONE; n];
    cost[s as usize] = 0;
    // As SimGrid: every node queued at the start, by (cost, node).
    let mut queue: BinaryHeap<Reverse<(u64, u32)>> = (0..n as u32)
        .map(|i| Reverse((cost[i as usize], i)))
        .collect();
    while let Some(Reverse((_, v))) = queue.pop() {
        let cv = cost[v as usize];
        if cv == u64::MAX {
            continue;
        }
        for &u in &out[v as usize] {
            let c = cv + hops[&(v, u)].links.len() as u64;
            if c < cost[u as usize] {
                cost[u as usize] = c;
                pred[u as usize] = v;
                queue.push(Reverse((c, u)));
            }
        }
    }
    pred
}
