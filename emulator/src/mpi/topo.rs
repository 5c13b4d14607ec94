//! Virtual topology calls: creating Cartesian grids, graphs and
//! distributed graphs (collective; the topology itself is stored with the
//! communicator, `comm::Topology`), their queries, the rank mappings
//! without reordering, and MPI_Dims_create.

use super::check::ArgArray;
use super::coll::{coll_error, execute, Buffers, Reduction};
use super::comm::Topology;
use super::{check, class, comm_name, split, Ctx, MpiError, MpiResult, PROC_NULL, UNDEFINED};
use crate::sim;

/// What MPI_Topo_test reports (mpi.h): MPI_GRAPH, MPI_CART,
/// MPI_DIST_GRAPH.
pub const GRAPH: i32 = 1;
pub const CART: i32 = 2;
pub const DIST_GRAPH: i32 = 3;

/// The Cartesian topology of `comm`: (dims, periods).
fn cart(comm: i32) -> MpiResult<(Vec<i32>, Vec<bool>)> {
    match sim::mpi(|w| w.topology(comm))?.as_deref() {
        Some(Topology::Cart { dims, periods }) => Ok((dims.clone(), periods.clone())),
        _ => Err(MpiError::new(
            class::TOPOLOGY,
            format!("{} has no Cartesian topology", comm_name(comm)),
        )),
    }
}

/// The graph topology of `comm`: (index, edges).
fn graph(comm: i32) -> MpiResult<(Vec<i32>, Vec<i32>)> {
    match sim::mpi(|w| w.topology(comm))?.as_deref() {
        Some(Topology::Graph { index, edges }) => Ok((index.clone(), edges.clone())),
        _ => Err(MpiError::new(
            class::TOPOLOGY,
            format!("{} has no graph topology", comm_name(comm)),
        )),
    }
}

fn my_rank(comm: i32) -> MpiResult<usize> {
    sim::mpi(|w| w.comm(comm)).map(|v| v.my_rank)
}

/// MPI_Cart_create without reordering: the first ranks of `comm` form
/// the grid, the others get MPI_COMM_NULL.
pub fn cart_create(
    comm: i32,
    ndims: i32,
    dims: &dyn ArgArray<i32>,
    periods: &dyn ArgArray<i32>,
) -> MpiResult<i32> {
    let n = check::ndims(ndims)?;
    let d = check::array(dims, n, "dims")?;
    let p = check::array(periods, n, "periods")?;
    let h = sim::mpi(|w| w.cart_create(comm, d, p.iter().map(|&x| x != 0).collect()))?;
    sim::mpi(|w| w.inherit_errhandler(comm, h));
    Ok(h)
}

/// MPI_Cartdim_get.
pub fn cartdim(comm: i32) -> MpiResult<usize> {
    cart(comm).map(|(d, _)| d.len())
}

/// A Cartesian grid as MPI_Cart_get reports it: dimensions, periodicity
/// (1 or 0) and the caller's coordinates, each cut to the room given.
pub struct CartView {
    pub dims: Vec<i32>,
    pub periods: Vec<i32>,
    pub coords: Vec<i32>,
}

/// MPI_Cart_get with room for `maxdims` dimensions.
pub fn cart_get(comm: i32, maxdims: i32) -> MpiResult<CartView> {
    let (d, p) = cart(comm)?;
    let n = check::ndims(maxdims)?.min(d.len());
    let mut coords = Topology::coords(&d, my_rank(comm)? as i32);
    coords.truncate(n);
    Ok(CartView {
        dims: d[..n].to_vec(),
        periods: p[..n].iter().map(|&x| i32::from(x)).collect(),
        coords,
    })
}

/// MPI_Cart_coords: the coordinates of `rank`, with room for `maxdims`.
pub fn cart_coords(comm: i32, rank: i32, maxdims: i32) -> MpiResult<Vec<i32>> {
    let (d, _) = cart(comm)?;
    let size = sim::mpi(|w| w.comm(comm))?.size();
    if rank < 0 || rank as usize >= size {
        return Err(MpiError::new(class::RANK, format!("invalid rank {rank}")));
    }
    if check::ndims(maxdims)? < d.len() {
        return Err(MpiError::new(
            class::ARG,
            format!("maxdims {maxdims} is less than the {} dimensions", d.len()),
        ));
    }
    Ok(Topology::coords(&d, rank))
}

/// MPI_Cart_rank: the rank at `coords` (one per dimension).
pub fn cart_rank(comm: i32, coords: &dyn ArgArray<i32>) -> MpiResult<i32> {
    let (d, p) = cart(comm)?;
    let c = check::array(coords, d.len(), "coords")?;
    Topology::rank_at(&d, &p, &c).ok_or_else(|| {
        MpiError::new(
            class::ARG,
            format!("coordinates {c:?} are outside the non-periodic grid {d:?}"),
        )
    })
}

/// MPI_Cart_shift: the (source, destination) ranks `disp` steps along
/// `direction`, MPI_PROC_NULL off a non-periodic edge.
pub fn cart_shift(comm: i32, direction: i32, disp: i32) -> MpiResult<(i32, i32)> {
    let (d, p) = cart(comm)?;
    let dir = usize::try_from(direction)
        .ok()
        .filter(|&x| x < d.len())
        .ok_or_else(|| MpiError::new(class::ARG, format!("invalid direction {direction}")))?;
    let c = Topology::coords(&d, my_rank(comm)? as i32);
    let shifted = |delta: i32| {
        let mut x = c.clone();
        x[dir] += delta;
        Topology::rank_at(&d, &p, &x).unwrap_or(PROC_NULL)
    };
    Ok((shifted(-disp), shifted(disp)))
}

/// MPI_Cart_sub: the subgrid of the dimensions `remain_dims` keeps (one
/// flag per dimension) that holds the caller.
pub fn cart_sub(comm: i32, remain_dims: &dyn ArgArray<i32>) -> MpiResult<i32> {
    let (d, p) = cart(comm)?;
    let keep: Vec<bool> = check::array(remain_dims, d.len(), "remain_dims")?
        .iter()
        .map(|&x| x != 0)
        .collect();
    let v = sim::mpi(|w| w.comm(comm))?;
    let c = Topology::coords(&d, v.my_rank as i32);
    // Ranks that agree on the dropped coordinates share a subgrid. With
    // no dimension kept, rank 0 alone gets a communicator (as MPICH).
    let mut color = 0i32;
    for i in 0..d.len() {
        if !keep[i] {
            color = color * d[i] + c[i];
        }
    }
    if !keep.iter().any(|&k| k) && v.my_rank != 0 {
        color = UNDEFINED;
    }
    let h = split::split(&v, color, v.my_rank as i32, "MPI_Cart_sub")?;
    let sub_dims: Vec<i32> = (0..d.len()).filter(|&i| keep[i]).map(|i| d[i]).collect();
    let sub_periods: Vec<bool> = (0..d.len()).filter(|&i| keep[i]).map(|i| p[i]).collect();
    sim::mpi(|w| {
        w.set_topology(
            h,
            Topology::Cart {
                dims: sub_dims,
                periods: sub_periods,
            },
        );
        w.inherit_errhandler(comm, h);
    });
    Ok(h)
}

/// MPI_Cart_map without reordering: the caller's rank if it is in the
/// grid, else MPI_UNDEFINED.
pub fn cart_map(comm: i32, ndims: i32, dims: &dyn ArgArray<i32>) -> MpiResult<i32> {
    let n = check::ndims(ndims)?;
    let d = check::array(dims, n, "dims")?;
    let v = sim::mpi(|w| w.comm(comm))?;
    let nnodes: i64 = d.iter().map(|&x| i64::from(x)).product();
    if d.iter().any(|&x| x <= 0) || nnodes > v.size() as i64 {
        return Err(MpiError::new(
            class::DIMS,
            format!("a {d:?} grid does not fit in {} ranks", v.size()),
        ));
    }
    Ok(if (v.my_rank as i64) < nnodes {
        v.my_rank as i32
    } else {
        UNDEFINED
    })
}

/// MPI_Topo_test: the kind of topology of `comm`, or MPI_UNDEFINED.
pub fn topo_test(comm: i32) -> MpiResult<i32> {
    Ok(match sim::mpi(|w| w.topology(comm))?.as_deref() {
        Some(Topology::Cart { .. }) => CART,
        Some(Topology::Graph { .. }) => GRAPH,
        Some(Topology::DistGraph { .. }) => DIST_GRAPH,
        None => UNDEFINED,
    })
}

/// MPI_Graph_create without reordering: `nnodes` indices, then as many
/// edges as the last index says.
pub fn graph_create(
    comm: i32,
    nnodes: i32,
    index: &dyn ArgArray<i32>,
    edges: &dyn ArgArray<i32>,
) -> MpiResult<i32> {
    let n = check::non_negative(nnodes, "nnodes")?;
    let idx = check::array(index, n, "index")?;
    let nedges = idx.last().map_or(0, |&x| usize::try_from(x).unwrap_or(0));
    let e = check::array(edges, nedges, "edges")?;
    let h = sim::mpi(|w| w.graph_create(comm, idx, e))?;
    sim::mpi(|w| w.inherit_errhandler(comm, h));
    Ok(h)
}

/// MPI_Graphdims_get: (nodes, edges).
pub fn graphdims(comm: i32) -> MpiResult<(usize, usize)> {
    graph(comm).map(|(idx, e)| (idx.len(), e.len()))
}

/// MPI_Graph_get with room for `maxindex` indices and `maxedges` edges.
pub fn graph_get(comm: i32, maxindex: i32, maxedges: i32) -> MpiResult<(Vec<i32>, Vec<i32>)> {
    let (mut idx, mut e) = graph(comm)?;
    idx.truncate(usize::try_from(maxindex).unwrap_or(0));
    e.truncate(usize::try_from(maxedges).unwrap_or(0));
    Ok((idx, e))
}

/// The neighbours of node `rank` of the graph of `comm`.
fn graph_neighbours(comm: i32, rank: i32) -> MpiResult<Vec<i32>> {
    let (idx, e) = graph(comm)?;
    let r = usize::try_from(rank)
        .ok()
        .filter(|&r| r < idx.len())
        .ok_or_else(|| MpiError::new(class::RANK, format!("invalid rank {rank}")))?;
    Ok(Topology::graph_neighbours(&idx, &e, r).to_vec())
}

/// MPI_Graph_neighbors_count.
pub fn graph_neighbors_count(comm: i32, rank: i32) -> MpiResult<usize> {
    graph_neighbours(comm, rank).map(|n| n.len())
}

/// MPI_Graph_neighbors with room for `maxneighbors`.
pub fn graph_neighbors(comm: i32, rank: i32, maxneighbors: i32) -> MpiResult<Vec<i32>> {
    let mut n = graph_neighbours(comm, rank)?;
    n.truncate(usize::try_from(maxneighbors).unwrap_or(0));
    Ok(n)
}

/// MPI_Graph_map without reordering: the caller's rank if it is one of
/// the `nnodes` nodes, else MPI_UNDEFINED.
pub fn graph_map(comm: i32, nnodes: i32) -> MpiResult<i32> {
    let v = sim::mpi(|w| w.comm(comm))?;
    if nnodes < 1 || nnodes as usize > v.size() {
        return Err(MpiError::new(
            class::ARG,
            format!(
                "a graph of {nnodes} nodes does not fit in {} ranks",
                v.size()
            ),
        ));
    }
    Ok(if (v.my_rank as i32) < nnodes {
        v.my_rank as i32
    } else {
        UNDEFINED
    })
}

/// The edge weights argument of a distributed graph constructor.
pub enum Weights<'a> {
    /// MPI_UNWEIGHTED.
    Unweighted,
    /// MPI_WEIGHTS_EMPTY: weighted, but only where there are no edges.
    Empty,
    /// One weight per edge.
    Given(&'a dyn ArgArray<i32>),
}

/// The `n` weights of `w` (named `what`), or None when unweighted.
fn weights(w: &Weights, n: usize, what: &'static str) -> MpiResult<Option<Vec<i32>>> {
    match w {
        Weights::Unweighted => Ok(None),
        Weights::Empty if n == 0 => Ok(Some(Vec::new())),
        Weights::Empty => Err(MpiError::new(
            class::ARG,
            format!("{what} is MPI_WEIGHTS_EMPTY but there are {n} edges"),
        )),
        Weights::Given(a) => check::array(*a, n, what).map(Some),
    }
}

/// Makes a distributed graph communicator (`create` joins it and records
/// the current rank's part of the graph) and waits until every member has
/// added its part (a barrier on the new communicator).
fn finish_dist_graph(
    create: impl FnOnce(&mut Ctx) -> MpiResult<i32>,
    call_name: &'static str,
) -> MpiResult<i32> {
    let h = sim::mpi(create)?;
    let view = sim::mpi(|w| w.comm(h))?;
    let s = collectives::barrier(collectives::Position {
        rank: view.my_rank,
        size: view.size(),
    })
    .map_err(coll_error)?;
    execute(&view, s, Buffers::none(), Reduction::None, call_name)?;
    Ok(h)
}

/// The arguments of MPI_Dist_graph_create_adjacent: the caller's in- and
/// out-neighbours with their weights.
pub struct Adjacent<'a> {
    pub indegree: i32,
    pub sources: &'a dyn ArgArray<i32>,
    pub sourceweights: Weights<'a>,
    pub outdegree: i32,
    pub destinations: &'a dyn ArgArray<i32>,
    pub destweights: Weights<'a>,
}

/// MPI_Dist_graph_create_adjacent without reordering.
pub fn dist_graph_create_adjacent(comm: i32, a: &Adjacent) -> MpiResult<i32> {
    let ni = check::non_negative(a.indegree, "indegree")?;
    let no = check::non_negative(a.outdegree, "outdegree")?;
    let me = my_rank(comm)? as i32;
    let src = check::array(a.sources, ni, "sources")?;
    let sw = weights(&a.sourceweights, ni, "sourceweights")?;
    let dst = check::array(a.destinations, no, "destinations")?;
    let dw = weights(&a.destweights, no, "destweights")?;
    let weighted = sw.is_some() || dw.is_some();
    let edges: Vec<(i32, i32, i32)> = dst
        .iter()
        .enumerate()
        .map(|(i, &d)| (me, d, dw.as_ref().map_or(1, |w| w[i])))
        .collect();
    let incoming: Vec<(i32, i32)> = src
        .iter()
        .enumerate()
        .map(|(i, &s)| (s, sw.as_ref().map_or(1, |w| w[i])))
        .collect();
    // Each rank states its own in- and out-neighbours, in the order its
    // neighbourhood collectives use.
    finish_dist_graph(
        |w| w.dist_graph_create_adjacent(comm, &edges, &incoming, weighted),
        "MPI_Dist_graph_create_adjacent",
    )
}

/// The arguments of MPI_Dist_graph_create: `n` sources with their
/// out-degrees, then all their destinations and weights.
pub struct DistEdges<'a> {
    pub n: i32,
    pub sources: &'a dyn ArgArray<i32>,
    pub degrees: &'a dyn ArgArray<i32>,
    pub destinations: &'a dyn ArgArray<i32>,
    pub weights: Weights<'a>,
}

/// MPI_Dist_graph_create without reordering.
pub fn dist_graph_create(comm: i32, g: &DistEdges) -> MpiResult<i32> {
    let n = check::non_negative(g.n, "n")?;
    let src = check::array(g.sources, n, "sources")?;
    let deg = check::array(g.degrees, n, "degrees")?;
    let mut total = 0usize;
    for &d in &deg {
        total += check::non_negative(d, "degree")?;
    }
    let dst = check::array(g.destinations, total, "destinations")?;
    let wts = weights(&g.weights, total, "weights")?;
    let mut edges = Vec::with_capacity(total);
    let mut k = 0;
    for (i, &s) in src.iter().enumerate() {
        for _ in 0..deg[i] {
            edges.push((s, dst[k], wts.as_ref().map_or(1, |w| w[k])));
            k += 1;
        }
    }
    finish_dist_graph(
        |w| w.dist_graph_create(comm, &edges, wts.is_some()),
        "MPI_Dist_graph_create",
    )
}

/// The caller's neighbours in a distributed graph: (rank, weight) per
/// source and per destination.
pub struct DistNeighbours {
    pub sources: Vec<(i32, i32)>,
    pub destinations: Vec<(i32, i32)>,
    pub weighted: bool,
}

/// The caller's neighbours in the distributed graph of `comm`.
pub fn dist_graph_neighbours(comm: i32) -> MpiResult<DistNeighbours> {
    sim::mpi(|w| {
        let me = w.comm(comm)?.my_rank;
        match w.topology(comm)?.as_deref() {
            Some(Topology::DistGraph {
                sources,
                destinations,
                weighted,
            }) => Ok(DistNeighbours {
                sources: sources[me].clone(),
                destinations: destinations[me].clone(),
                weighted: *weighted,
            }),
            _ => Err(MpiError::new(
                class::TOPOLOGY,
                format!("{} has no distributed graph topology", comm_name(comm)),
            )),
        }
    })
}

/// MPI_Dist_graph_neighbors with room for `maxindegree` sources and
/// `maxoutdegree` destinations.
pub fn dist_graph_neighbors(
    comm: i32,
    maxindegree: i32,
    maxoutdegree: i32,
) -> MpiResult<DistNeighbours> {
    let mut n = dist_graph_neighbours(comm)?;
    n.sources
        .truncate(check::non_negative(maxindegree, "maxindegree")?);
    n.destinations
        .truncate(check::non_negative(maxoutdegree, "maxoutdegree")?);
    Ok(n)
}

/// MPI_Dims_create: `ndims` dimensions whose zero entries are filled in.
pub fn dims_create(nnodes: i32, ndims: i32, dims: &dyn ArgArray<i32>) -> MpiResult<Vec<i32>> {
    let n = check::ndims(ndims)?;
    if nnodes < 1 {
        return Err(MpiError::new(
            class::ARG,
            format!("invalid nnodes {nnodes}"),
        ));
    }
    fill_dims(nnodes, check::array(dims, n, "dims")?)
}

/// Fills the zero entries of `dims` with a balanced factorization of
/// `nnodes` / (product of the non-zero entries), in non-increasing order.
fn fill_dims(nnodes: i32, mut dims: Vec<i32>) -> MpiResult<Vec<i32>> {
    let fixed: i64 = dims
        .iter()
        .filter(|&&x| x > 0)
        .map(|&x| i64::from(x))
        .product();
    if dims.iter().any(|&x| x < 0) || i64::from(nnodes) % fixed != 0 {
        return Err(MpiError::new(
            class::DIMS,
            format!("the given dimensions do not divide {nnodes}"),
        ));
    }
    let free = dims.iter().filter(|&&x| x == 0).count();
    let rest = i64::from(nnodes) / fixed;
    if free == 0 {
        return if rest == 1 {
            Ok(dims)
        } else {
            Err(MpiError::new(
                class::DIMS,
                format!("the dimensions do not multiply to {nnodes}"),
            ))
        };
    }
    let mut factors = balanced_factors(rest, free).into_iter();
    for x in dims.iter_mut().filter(|x| **x == 0) {
        *x = factors.next().unwrap_or(1) as i32;
    }
    Ok(dims)
}

/// The most balanced way to write `n` as a product of `k` factors, in
/// non-increasing order, as MPICH's MPI_Dims_create chooses it: the
/// smallest spread between the largest and smallest factor, then the
/// largest smallest factor, the largest second smallest, and so on.
fn balanced_factors(n: i64, k: usize) -> Vec<i64> {
    fn divisors_desc(n: i64) -> Vec<i64> {
        let mut small = Vec::new();
        let mut large = Vec::new();
        let mut d = 1;
        while d * d <= n {
            if n % d == 0 {
                small.push(d);
                if d * d != n {
                    large.push(n / d);
                }
            }
            d += 1;
        }
        large.extend(small.into_iter().rev());
        large
    }
    fn search(n: i64, k: usize, max: i64, cur: &mut Vec<i64>, best: &mut Option<Vec<i64>>) {
        if k == 1 {
            if n <= max {
                cur.push(n);
                // The smallest spread; on a tie, the largest smallest factor,
                // then the largest second smallest, and so on (factors are
                // kept non-increasing).
                let better = |a: &[i64], b: &[i64]| {
                    let spread = |v: &[i64]| v[0] - v[v.len() - 1];
                    spread(a)
                        .cmp(&spread(b))
                        .then_with(|| b.iter().rev().cmp(a.iter().rev()))
                        == std::cmp::Ordering::Less
                };
                if best.as_ref().is_none_or(|b| better(cur, b)) {
                    *best = Some(cur.clone());
                }
                cur.pop();
            }
            return;
        }
        for d in divisors_desc(n) {
            if d > max {
                continue;
            }
            // The first factor is the largest: d^k must reach n.
            if (d as f64).powi(k as i32) < n as f64 * (1.0 - 1e-12) {
                break;
            }
            cur.push(d);
            search(n / d, k - 1, d, cur, best);
            cur.pop();
        }
    }
    let mut best = None;
    search(n, k, n, &mut Vec::with_capacity(k), &mut best);
    best.unwrap_or_else(|| vec![1; k])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dims_are_as_balanced_as_possible() {
        assert_eq!(balanced_factors(72, 2), vec![9, 8]);
        assert_eq!(balanced_factors(240, 2), vec![16, 15]);
        assert_eq!(balanced_factors(8, 3), vec![2, 2, 2]);
        assert_eq!(balanced_factors(13, 2), vec![13, 1]);
        assert_eq!(balanced_factors(1, 3), vec![1, 1, 1]);
        assert_eq!(balanced_factors(24, 3), vec![4, 3, 2]);
        assert_eq!(balanced_factors(5616, 4), vec![13, 9, 8, 6]);
        assert_eq!(balanced_factors(5040, 3), vec![21, 16, 15]);
        assert_eq!(balanced_factors(3168, 3), vec![18, 16, 11]);
    }

    #[test]
    fn dims_create_fills_only_the_zero_entries() {
        assert_eq!(fill_dims(12, vec![0, 0]).unwrap(), vec![4, 3]);
        assert_eq!(fill_dims(24, vec![0, 2, 0]).unwrap(), vec![4, 2, 3]);
        assert_eq!(fill_dims(6, vec![3, 2]).unwrap(), vec![3, 2]);
        let e = fill_dims(10, vec![3, 0]).unwrap_err();
        assert_eq!(
            (e.class, e.message.as_str()),
            (class::DIMS, "the given dimensions do not divide 10")
        );
        assert_eq!(fill_dims(6, vec![-1, 0]).unwrap_err().class, class::DIMS);
        assert_eq!(
            fill_dims(12, vec![3, 2]).unwrap_err().message,
            "the dimensions do not multiply to 12"
        );
    }

    /// An array argument held in memory.
    struct Given(Vec<i32>);

    impl ArgArray<i32> for Given {
        fn read(&self, n: usize, _what: &'static str) -> MpiResult<Vec<i32>> {
            Ok(self.0[..n].to_vec())
        }
    }

    #[test]
    fn edge_weights() {
        assert_eq!(weights(&Weights::Unweighted, 3, "weights").unwrap(), None);
        assert_eq!(
            weights(&Weights::Empty, 0, "weights").unwrap(),
            Some(Vec::new())
        );
        assert_eq!(
            weights(&Weights::Empty, 2, "destweights")
                .unwrap_err()
                .message,
            "destweights is MPI_WEIGHTS_EMPTY but there are 2 edges"
        );
        let given = Given(vec![5, 6, 7]);
        assert_eq!(
            weights(&Weights::Given(&given), 2, "weights").unwrap(),
            Some(vec![5, 6])
        );
    }
}
