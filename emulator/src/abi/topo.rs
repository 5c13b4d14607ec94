//! Virtual topologies: Cartesian grids, graphs and distributed graphs.

use std::ffi::c_int;

use super::call;
use super::check::out;
use crate::mpi::coll::{coll_error, execute, Buffers, Reduction};
use crate::mpi::comm::{Neighbours, Topology};
use crate::mpi::{self, class, MpiError, MpiResult};
use crate::sim;

const GRAPH: c_int = 1;
const CART: c_int = 2;
const DIST_GRAPH: c_int = 3;
/// MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY (as in mpi.h).
const UNWEIGHTED: usize = 2;
const WEIGHTS_EMPTY: usize = 3;

/// Reads `n` ints from a C array.
///
/// # Safety
/// `p` points to `n` readable ints when `n > 0`.
unsafe fn ints(p: *const c_int, n: usize, what: &str) -> MpiResult<Vec<c_int>> {
    // SAFETY: per the contract.
    unsafe { super::check::read_array(p, n, what) }
}

/// Writes `v` into a C array of at least `v.len()` ints.
///
/// # Safety
/// `p` has room for `v.len()` ints when `v` is not empty.
unsafe fn write_ints(p: *mut c_int, v: &[c_int], what: &str) -> MpiResult<()> {
    if v.is_empty() {
        return Ok(());
    }
    if p.is_null() {
        return Err(MpiError::new(
            class::ARG,
            format!("{what} is a null pointer"),
        ));
    }
    // SAFETY: per the contract.
    unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), p, v.len()) };
    Ok(())
}

/// The Cartesian topology of `comm`: (dims, periods).
fn cart(comm: c_int) -> MpiResult<(Vec<i32>, Vec<bool>)> {
    match sim::mpi(|w| w.topology(comm))?.as_deref() {
        Some(Topology::Cart { dims, periods }) => Ok((dims.clone(), periods.clone())),
        _ => Err(MpiError::new(
            class::TOPOLOGY,
            format!("{} has no Cartesian topology", mpi::comm_name(comm)),
        )),
    }
}

/// The graph topology of `comm`: (index, edges).
fn graph(comm: c_int) -> MpiResult<(Vec<i32>, Vec<i32>)> {
    match sim::mpi(|w| w.topology(comm))?.as_deref() {
        Some(Topology::Graph { index, edges }) => Ok((index.clone(), edges.clone())),
        _ => Err(MpiError::new(
            class::TOPOLOGY,
            format!("{} has no graph topology", mpi::comm_name(comm)),
        )),
    }
}

fn ndims_of(n: c_int) -> MpiResult<usize> {
    usize::try_from(n).map_err(|_| MpiError::new(class::DIMS, format!("invalid ndims {n}")))
}

pub(crate) unsafe extern "C" fn MPI_Cart_create(
    comm: c_int,
    ndims: c_int,
    dims: *const c_int,
    periods: *const c_int,
    _reorder: c_int,
    comm_cart: *mut c_int,
) -> c_int {
    call("MPI_Cart_create", comm, || {
        let n = ndims_of(ndims)?;
        // SAFETY: MPI passes arrays of ndims entries.
        let (d, p) = unsafe { (ints(dims, n, "dims")?, ints(periods, n, "periods")?) };
        let h = sim::mpi(|w| w.cart_create(comm, d, p.iter().map(|&x| x != 0).collect()))?;
        sim::mpi(|w| w.inherit_errhandler(comm, h));
        // SAFETY: the caller's output argument.
        unsafe { out(comm_cart, h, "comm_cart") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Cartdim_get(comm: c_int, ndims: *mut c_int) -> c_int {
    call("MPI_Cartdim_get", comm, || {
        let (d, _) = cart(comm)?;
        // SAFETY: the caller's output argument.
        unsafe { out(ndims, d.len() as c_int, "ndims") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Cart_get(
    comm: c_int,
    maxdims: c_int,
    dims: *mut c_int,
    periods: *mut c_int,
    coords: *mut c_int,
) -> c_int {
    call("MPI_Cart_get", comm, || {
        let (d, p) = cart(comm)?;
        let n = ndims_of(maxdims)?.min(d.len());
        let me = sim::mpi(|w| w.comm(comm))?.my_rank as i32;
        let c = Topology::coords(&d, me);
        let p: Vec<c_int> = p.iter().map(|&x| c_int::from(x)).collect();
        // SAFETY: MPI passes arrays of maxdims entries.
        unsafe {
            write_ints(dims, &d[..n], "dims")?;
            write_ints(periods, &p[..n], "periods")?;
            write_ints(coords, &c[..n], "coords")
        }
    })
}

pub(crate) unsafe extern "C" fn MPI_Cart_coords(
    comm: c_int,
    rank: c_int,
    maxdims: c_int,
    coords: *mut c_int,
) -> c_int {
    call("MPI_Cart_coords", comm, || {
        let (d, _) = cart(comm)?;
        let size = sim::mpi(|w| w.comm(comm))?.size();
        if rank < 0 || rank as usize >= size {
            return Err(MpiError::new(class::RANK, format!("invalid rank {rank}")));
        }
        if ndims_of(maxdims)? < d.len() {
            return Err(MpiError::new(
                class::ARG,
                format!("maxdims {maxdims} is less than the {} dimensions", d.len()),
            ));
        }
        let c = Topology::coords(&d, rank);
        // SAFETY: MPI passes an array of maxdims entries.
        unsafe { write_ints(coords, &c, "coords") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Cart_rank(
    comm: c_int,
    coords: *const c_int,
    rank: *mut c_int,
) -> c_int {
    call("MPI_Cart_rank", comm, || {
        let (d, p) = cart(comm)?;
        // SAFETY: MPI passes an array of ndims entries.
        let c = unsafe { ints(coords, d.len(), "coords")? };
        let r = Topology::rank_at(&d, &p, &c).ok_or_else(|| {
            MpiError::new(
                class::ARG,
                format!("coordinates {c:?} are outside the non-periodic grid {d:?}"),
            )
        })?;
        // SAFETY: the caller's output argument.
        unsafe { out(rank, r, "rank") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Cart_shift(
    comm: c_int,
    direction: c_int,
    disp: c_int,
    source: *mut c_int,
    dest: *mut c_int,
) -> c_int {
    call("MPI_Cart_shift", comm, || {
        let (d, p) = cart(comm)?;
        let dir = usize::try_from(direction)
            .ok()
            .filter(|&x| x < d.len())
            .ok_or_else(|| MpiError::new(class::ARG, format!("invalid direction {direction}")))?;
        let me = sim::mpi(|w| w.comm(comm))?.my_rank as i32;
        let c = Topology::coords(&d, me);
        let shifted = |delta: c_int| {
            let mut x = c.clone();
            x[dir] += delta;
            Topology::rank_at(&d, &p, &x).unwrap_or(mpi::PROC_NULL)
        };
        // SAFETY: the caller's output arguments.
        unsafe {
            out(source, shifted(-disp), "rank_source")?;
            out(dest, shifted(disp), "rank_dest")
        }
    })
}

pub(crate) unsafe extern "C" fn MPI_Cart_sub(
    comm: c_int,
    remain_dims: *const c_int,
    newcomm: *mut c_int,
) -> c_int {
    call("MPI_Cart_sub", comm, || {
        let (d, p) = cart(comm)?;
        // SAFETY: MPI passes an array of ndims entries.
        let keep: Vec<bool> = unsafe { ints(remain_dims, d.len(), "remain_dims")? }
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
            color = mpi::UNDEFINED;
        }
        let h = mpi::split::split(&v, color, v.my_rank as c_int, "MPI_Cart_sub")?;
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
        // SAFETY: the caller's output argument.
        unsafe { out(newcomm, h, "newcomm") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Cart_map(
    comm: c_int,
    ndims: c_int,
    dims: *const c_int,
    _periods: *const c_int,
    newrank: *mut c_int,
) -> c_int {
    call("MPI_Cart_map", comm, || {
        let n = ndims_of(ndims)?;
        // SAFETY: MPI passes an array of ndims entries.
        let d = unsafe { ints(dims, n, "dims")? };
        let v = sim::mpi(|w| w.comm(comm))?;
        let nnodes: i64 = d.iter().map(|&x| i64::from(x)).product();
        if d.iter().any(|&x| x <= 0) || nnodes > v.size() as i64 {
            return Err(MpiError::new(
                class::DIMS,
                format!("a {d:?} grid does not fit in {} ranks", v.size()),
            ));
        }
        let r = if (v.my_rank as i64) < nnodes {
            v.my_rank as c_int
        } else {
            mpi::UNDEFINED
        };
        // SAFETY: the caller's output argument.
        unsafe { out(newrank, r, "newrank") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Topo_test(comm: c_int, status: *mut c_int) -> c_int {
    call("MPI_Topo_test", comm, || {
        let t = sim::mpi(|w| w.topology(comm))?;
        let s = match t.as_deref() {
            Some(Topology::Cart { .. }) => CART,
            Some(Topology::Graph { .. }) => GRAPH,
            Some(Topology::DistGraph { .. }) => DIST_GRAPH,
            None => mpi::UNDEFINED,
        };
        // SAFETY: the caller's output argument.
        unsafe { out(status, s, "status") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Graph_create(
    comm: c_int,
    nnodes: c_int,
    index: *const c_int,
    edges: *const c_int,
    _reorder: c_int,
    comm_graph: *mut c_int,
) -> c_int {
    call("MPI_Graph_create", comm, || {
        let n = usize::try_from(nnodes)
            .map_err(|_| MpiError::new(class::ARG, format!("invalid nnodes {nnodes}")))?;
        // SAFETY: MPI passes nnodes indices, then index[nnodes-1] edges.
        let idx = unsafe { ints(index, n, "index")? };
        let nedges = idx.last().map_or(0, |&x| usize::try_from(x).unwrap_or(0));
        // SAFETY: as above.
        let e = unsafe { ints(edges, nedges, "edges")? };
        let h = sim::mpi(|w| w.graph_create(comm, idx, e))?;
        sim::mpi(|w| w.inherit_errhandler(comm, h));
        // SAFETY: the caller's output argument.
        unsafe { out(comm_graph, h, "comm_graph") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Graphdims_get(
    comm: c_int,
    nnodes: *mut c_int,
    nedges: *mut c_int,
) -> c_int {
    call("MPI_Graphdims_get", comm, || {
        let (idx, e) = graph(comm)?;
        // SAFETY: the caller's output arguments.
        unsafe {
            out(nnodes, idx.len() as c_int, "nnodes")?;
            out(nedges, e.len() as c_int, "nedges")
        }
    })
}

pub(crate) unsafe extern "C" fn MPI_Graph_get(
    comm: c_int,
    maxindex: c_int,
    maxedges: c_int,
    index: *mut c_int,
    edges: *mut c_int,
) -> c_int {
    call("MPI_Graph_get", comm, || {
        let (idx, e) = graph(comm)?;
        let ni = usize::try_from(maxindex).unwrap_or(0).min(idx.len());
        let ne = usize::try_from(maxedges).unwrap_or(0).min(e.len());
        // SAFETY: MPI passes arrays of maxindex and maxedges entries.
        unsafe {
            write_ints(index, &idx[..ni], "index")?;
            write_ints(edges, &e[..ne], "edges")
        }
    })
}

pub(crate) unsafe extern "C" fn MPI_Graph_neighbors_count(
    comm: c_int,
    rank: c_int,
    nneighbors: *mut c_int,
) -> c_int {
    call("MPI_Graph_neighbors_count", comm, || {
        let (idx, e) = graph(comm)?;
        let r = usize::try_from(rank)
            .ok()
            .filter(|&r| r < idx.len())
            .ok_or_else(|| MpiError::new(class::RANK, format!("invalid rank {rank}")))?;
        // SAFETY: the caller's output argument.
        unsafe {
            out(
                nneighbors,
                Topology::graph_neighbours(&idx, &e, r).len() as c_int,
                "nneighbors",
            )
        }
    })
}

pub(crate) unsafe extern "C" fn MPI_Graph_neighbors(
    comm: c_int,
    rank: c_int,
    maxneighbors: c_int,
    neighbors: *mut c_int,
) -> c_int {
    call("MPI_Graph_neighbors", comm, || {
        let (idx, e) = graph(comm)?;
        let r = usize::try_from(rank)
            .ok()
            .filter(|&r| r < idx.len())
            .ok_or_else(|| MpiError::new(class::RANK, format!("invalid rank {rank}")))?;
        let n = Topology::graph_neighbours(&idx, &e, r);
        let m = usize::try_from(maxneighbors).unwrap_or(0).min(n.len());
        // SAFETY: MPI passes an array of maxneighbors entries.
        unsafe { write_ints(neighbors, &n[..m], "neighbors") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Graph_map(
    comm: c_int,
    nnodes: c_int,
    _index: *const c_int,
    _edges: *const c_int,
    newrank: *mut c_int,
) -> c_int {
    call("MPI_Graph_map", comm, || {
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
        let r = if (v.my_rank as c_int) < nnodes {
            v.my_rank as c_int
        } else {
            mpi::UNDEFINED
        };
        // SAFETY: the caller's output argument.
        unsafe { out(newrank, r, "newrank") }
    })
}

/// Reads `n` weights, or None for MPI_UNWEIGHTED (MPI_WEIGHTS_EMPTY with
/// no edges is weighted).
///
/// # Safety
/// `p` is one of the two constants or points to `n` readable ints.
unsafe fn weights(p: *const c_int, n: usize, what: &str) -> MpiResult<Option<Vec<c_int>>> {
    match p as usize {
        UNWEIGHTED => Ok(None),
        WEIGHTS_EMPTY if n == 0 => Ok(Some(Vec::new())),
        WEIGHTS_EMPTY => Err(MpiError::new(
            class::ARG,
            format!("{what} is MPI_WEIGHTS_EMPTY but there are {n} edges"),
        )),
        // SAFETY: per the contract.
        _ => unsafe { ints(p, n, what) }.map(Some),
    }
}

fn degree(n: c_int, what: &str) -> MpiResult<usize> {
    usize::try_from(n).map_err(|_| MpiError::new(class::ARG, format!("invalid {what} {n}")))
}

/// Makes a distributed graph communicator (`create` joins it and records
/// the current rank's part of the graph), waits until every member has
/// added its part (a barrier on the new communicator), and writes it.
fn finish_dist_graph(
    create: impl FnOnce(&mut crate::mpi::Ctx) -> MpiResult<c_int>,
    out_comm: *mut c_int,
    call_name: &'static str,
) -> MpiResult<()> {
    if out_comm.is_null() {
        return Err(MpiError::new(
            class::ARG,
            "comm_dist_graph is a null pointer",
        ));
    }
    let h = sim::mpi(create)?;
    let view = sim::mpi(|w| w.comm(h))?;
    let s = collectives::barrier(collectives::Position {
        rank: view.my_rank,
        size: view.size(),
    })
    .map_err(coll_error)?;
    execute(&view, s, Buffers::none(), Reduction::None, call_name)?;
    // SAFETY: non-null output argument.
    unsafe { *out_comm = h };
    Ok(())
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe extern "C" fn MPI_Dist_graph_create_adjacent(
    comm: c_int,
    indegree: c_int,
    sources: *const c_int,
    sourceweights: *const c_int,
    outdegree: c_int,
    destinations: *const c_int,
    destweights: *const c_int,
    _info: c_int,
    _reorder: c_int,
    comm_dist_graph: *mut c_int,
) -> c_int {
    call("MPI_Dist_graph_create_adjacent", comm, || {
        let (ni, no) = (
            degree(indegree, "indegree")?,
            degree(outdegree, "outdegree")?,
        );
        let me = sim::mpi(|w| w.comm(comm).map(|v| v.my_rank as c_int))?;
        // SAFETY: MPI passes arrays of the degrees' lengths (or the
        // weight constants).
        let (src, sw, dst, dw) = unsafe {
            (
                ints(sources, ni, "sources")?,
                weights(sourceweights, ni, "sourceweights")?,
                ints(destinations, no, "destinations")?,
                weights(destweights, no, "destweights")?,
            )
        };
        let weighted = sw.is_some() || dw.is_some();
        let mut edges: Vec<(c_int, c_int, c_int)> = Vec::with_capacity(ni + no);
        for (i, &d) in dst.iter().enumerate() {
            edges.push((me, d, dw.as_ref().map_or(1, |w| w[i])));
        }
        let incoming: Vec<(c_int, c_int)> = src
            .iter()
            .enumerate()
            .map(|(i, &s)| (s, sw.as_ref().map_or(1, |w| w[i])))
            .collect();
        // Each rank states its own in- and out-neighbours, in the order
        // its neighbourhood collectives use.
        finish_dist_graph(
            |w| w.dist_graph_create_adjacent(comm, &edges, &incoming, weighted),
            comm_dist_graph,
            "MPI_Dist_graph_create_adjacent",
        )
    })
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe extern "C" fn MPI_Dist_graph_create(
    comm: c_int,
    n: c_int,
    sources: *const c_int,
    degrees: *const c_int,
    destinations: *const c_int,
    weights_arg: *const c_int,
    _info: c_int,
    _reorder: c_int,
    comm_dist_graph: *mut c_int,
) -> c_int {
    call("MPI_Dist_graph_create", comm, || {
        let n = degree(n, "n")?;
        // SAFETY: MPI passes `n` sources and degrees, then sum(degrees)
        // destinations and weights.
        let (src, deg) = unsafe { (ints(sources, n, "sources")?, ints(degrees, n, "degrees")?) };
        let mut total = 0usize;
        for &d in &deg {
            total += degree(d, "degree")?;
        }
        // SAFETY: as above.
        let (dst, wts) = unsafe {
            (
                ints(destinations, total, "destinations")?,
                weights(weights_arg, total, "weights")?,
            )
        };
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
            comm_dist_graph,
            "MPI_Dist_graph_create",
        )
    })
}

/// The current rank's (sources, destinations) with weights, and whether
/// the graph is weighted.
fn dist_graph(comm: c_int) -> MpiResult<(Neighbours, bool)> {
    sim::mpi(|w| {
        let me = w.comm(comm)?.my_rank;
        match w.topology(comm)?.as_deref() {
            Some(Topology::DistGraph {
                sources,
                destinations,
                weighted,
            }) => Ok(((sources[me].clone(), destinations[me].clone()), *weighted)),
            _ => Err(MpiError::new(
                class::TOPOLOGY,
                format!("{} has no distributed graph topology", mpi::comm_name(comm)),
            )),
        }
    })
}

pub(crate) unsafe extern "C" fn MPI_Dist_graph_neighbors_count(
    comm: c_int,
    indegree: *mut c_int,
    outdegree: *mut c_int,
    weighted: *mut c_int,
) -> c_int {
    call("MPI_Dist_graph_neighbors_count", comm, || {
        let ((i, o), wt) = dist_graph(comm)?;
        // SAFETY: the caller's output arguments.
        unsafe {
            out(indegree, i.len() as c_int, "indegree")?;
            out(outdegree, o.len() as c_int, "outdegree")?;
            out(weighted, c_int::from(wt), "weighted")
        }
    })
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe extern "C" fn MPI_Dist_graph_neighbors(
    comm: c_int,
    maxindegree: c_int,
    sources: *mut c_int,
    sourceweights: *mut c_int,
    maxoutdegree: c_int,
    destinations: *mut c_int,
    destweights: *mut c_int,
) -> c_int {
    call("MPI_Dist_graph_neighbors", comm, || {
        let ((i, o), wt) = dist_graph(comm)?;
        let (mi, mo) = (
            degree(maxindegree, "maxindegree")?,
            degree(maxoutdegree, "maxoutdegree")?,
        );
        let (i, o) = (&i[..i.len().min(mi)], &o[..o.len().min(mo)]);
        let firsts = |v: &[(i32, i32)]| v.iter().map(|e| e.0).collect::<Vec<_>>();
        let seconds = |v: &[(i32, i32)]| v.iter().map(|e| e.1).collect::<Vec<_>>();
        // SAFETY: the caller's arrays hold maxindegree / maxoutdegree
        // entries; weights are written only for weighted graphs and real
        // arrays.
        unsafe {
            write_ints(sources, &firsts(i), "sources")?;
            write_ints(destinations, &firsts(o), "destinations")?;
            if wt {
                if sourceweights as usize > WEIGHTS_EMPTY {
                    write_ints(sourceweights, &seconds(i), "sourceweights")?;
                }
                if destweights as usize > WEIGHTS_EMPTY {
                    write_ints(destweights, &seconds(o), "destweights")?;
                }
            }
        }
        Ok(())
    })
}
