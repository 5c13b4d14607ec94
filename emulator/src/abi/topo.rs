//! Virtual topology calls, bound to `mpi::topo`: Cartesian grids, graphs,
//! distributed graphs and MPI_Dims_create.

use std::ffi::c_int;

use super::call;
use super::check::{non_null, out, write_array, CArray};
use crate::mpi;
use crate::mpi::topo::{self, Adjacent, DistEdges, Weights};

/// MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY (as in mpi.h).
const UNWEIGHTED: usize = 2;
const WEIGHTS_EMPTY: usize = 3;

/// The weights argument at `p`: one of the two constants, or an array.
fn weights<'a>(p: &'a CArray<c_int>) -> Weights<'a> {
    match p.0 as usize {
        UNWEIGHTED => Weights::Unweighted,
        WEIGHTS_EMPTY => Weights::Empty,
        _ => Weights::Given(p),
    }
}

/// Whether `p` is an array to write weights into (not a weight constant).
fn is_weights_array(p: *mut c_int) -> bool {
    p as usize > WEIGHTS_EMPTY
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
        let h = topo::cart_create(comm, ndims, &CArray(dims), &CArray(periods))?;
        // SAFETY: the caller's output argument.
        unsafe { out(comm_cart, h, "comm_cart") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Cartdim_get(comm: c_int, ndims: *mut c_int) -> c_int {
    call("MPI_Cartdim_get", comm, || {
        let n = topo::cartdim(comm)?;
        // SAFETY: the caller's output argument.
        unsafe { out(ndims, n as c_int, "ndims") }
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
        let c = topo::cart_get(comm, maxdims)?;
        // SAFETY: MPI passes arrays of maxdims entries, more than `cart_get`
        // returns.
        unsafe {
            write_array(dims, &c.dims, "dims")?;
            write_array(periods, &c.periods, "periods")?;
            write_array(coords, &c.coords, "coords")
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
        let c = topo::cart_coords(comm, rank, maxdims)?;
        // SAFETY: MPI passes an array of maxdims entries, at least as many
        // as `cart_coords` returns.
        unsafe { write_array(coords, &c, "coords") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Cart_rank(
    comm: c_int,
    coords: *const c_int,
    rank: *mut c_int,
) -> c_int {
    call("MPI_Cart_rank", comm, || {
        let r = topo::cart_rank(comm, &CArray(coords))?;
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
        let (s, d) = topo::cart_shift(comm, direction, disp)?;
        // SAFETY: the caller's output arguments.
        unsafe {
            out(source, s, "rank_source")?;
            out(dest, d, "rank_dest")
        }
    })
}

pub(crate) unsafe extern "C" fn MPI_Cart_sub(
    comm: c_int,
    remain_dims: *const c_int,
    newcomm: *mut c_int,
) -> c_int {
    call("MPI_Cart_sub", comm, || {
        let h = topo::cart_sub(comm, &CArray(remain_dims))?;
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
        let r = topo::cart_map(comm, ndims, &CArray(dims))?;
        // SAFETY: the caller's output argument.
        unsafe { out(newrank, r, "newrank") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Topo_test(comm: c_int, status: *mut c_int) -> c_int {
    call("MPI_Topo_test", comm, || {
        let s = topo::topo_test(comm)?;
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
        let h = topo::graph_create(comm, nnodes, &CArray(index), &CArray(edges))?;
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
        let (n, e) = topo::graphdims(comm)?;
        // SAFETY: the caller's output arguments.
        unsafe {
            out(nnodes, n as c_int, "nnodes")?;
            out(nedges, e as c_int, "nedges")
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
        let (idx, e) = topo::graph_get(comm, maxindex, maxedges)?;
        // SAFETY: MPI passes arrays of maxindex and maxedges entries, at
        // least as many as `graph_get` returns.
        unsafe {
            write_array(index, &idx, "index")?;
            write_array(edges, &e, "edges")
        }
    })
}

pub(crate) unsafe extern "C" fn MPI_Graph_neighbors_count(
    comm: c_int,
    rank: c_int,
    nneighbors: *mut c_int,
) -> c_int {
    call("MPI_Graph_neighbors_count", comm, || {
        let n = topo::graph_neighbors_count(comm, rank)?;
        // SAFETY: the caller's output argument.
        unsafe { out(nneighbors, n as c_int, "nneighbors") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Graph_neighbors(
    comm: c_int,
    rank: c_int,
    maxneighbors: c_int,
    neighbors: *mut c_int,
) -> c_int {
    call("MPI_Graph_neighbors", comm, || {
        let n = topo::graph_neighbors(comm, rank, maxneighbors)?;
        // SAFETY: MPI passes an array of maxneighbors entries, at least as
        // many as `graph_neighbors` returns.
        unsafe { write_array(neighbors, &n, "neighbors") }
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
        let r = topo::graph_map(comm, nnodes)?;
        // SAFETY: the caller's output argument.
        unsafe { out(newrank, r, "newrank") }
    })
}

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
    let (sw, dw) = (CArray(sourceweights), CArray(destweights));
    let a = Adjacent {
        indegree,
        sources: &CArray(sources),
        sourceweights: weights(&sw),
        outdegree,
        destinations: &CArray(destinations),
        destweights: weights(&dw),
    };
    call("MPI_Dist_graph_create_adjacent", comm, || {
        // Checked before the creation, which the other members cannot undo.
        non_null(comm_dist_graph, "comm_dist_graph")?;
        let h = topo::dist_graph_create_adjacent(comm, &a)?;
        // SAFETY: non-null output argument.
        unsafe { out(comm_dist_graph, h, "comm_dist_graph") }
    })
}

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
    let w = CArray(weights_arg);
    let g = DistEdges {
        n,
        sources: &CArray(sources),
        degrees: &CArray(degrees),
        destinations: &CArray(destinations),
        weights: weights(&w),
    };
    call("MPI_Dist_graph_create", comm, || {
        // Checked before the creation, which the other members cannot undo.
        non_null(comm_dist_graph, "comm_dist_graph")?;
        let h = topo::dist_graph_create(comm, &g)?;
        // SAFETY: non-null output argument.
        unsafe { out(comm_dist_graph, h, "comm_dist_graph") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Dist_graph_neighbors_count(
    comm: c_int,
    indegree: *mut c_int,
    outdegree: *mut c_int,
    weighted: *mut c_int,
) -> c_int {
    call("MPI_Dist_graph_neighbors_count", comm, || {
        let n = topo::dist_graph_neighbours(comm)?;
        // SAFETY: the caller's output arguments.
        unsafe {
            out(indegree, n.sources.len() as c_int, "indegree")?;
            out(outdegree, n.destinations.len() as c_int, "outdegree")?;
            out(weighted, c_int::from(n.weighted), "weighted")
        }
    })
}

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
        let n = topo::dist_graph_neighbors(comm, maxindegree, maxoutdegree)?;
        let ranks = |v: &[(i32, i32)]| v.iter().map(|e| e.0).collect::<Vec<_>>();
        let weights_of = |v: &[(i32, i32)]| v.iter().map(|e| e.1).collect::<Vec<_>>();
        // SAFETY: the caller's arrays hold maxindegree / maxoutdegree
        // entries, at least as many as returned; weights are written only
        // for weighted graphs and into real arrays.
        unsafe {
            write_array(sources, &ranks(&n.sources), "sources")?;
            write_array(destinations, &ranks(&n.destinations), "destinations")?;
            if n.weighted {
                if is_weights_array(sourceweights) {
                    write_array(sourceweights, &weights_of(&n.sources), "sourceweights")?;
                }
                if is_weights_array(destweights) {
                    write_array(destweights, &weights_of(&n.destinations), "destweights")?;
                }
            }
        }
        Ok(())
    })
}

/// MPI_Dims_create: fills the zero entries of `dims` (ndims entries).
pub(crate) unsafe extern "C" fn MPI_Dims_create(
    nnodes: c_int,
    ndims: c_int,
    dims: *mut c_int,
) -> c_int {
    call("MPI_Dims_create", mpi::COMM_WORLD, || {
        let d = topo::dims_create(nnodes, ndims, &CArray(dims.cast_const()))?;
        // SAFETY: MPI passes an array of ndims entries, which `d` has.
        unsafe { write_array(dims, &d, "dims") }
    })
}
