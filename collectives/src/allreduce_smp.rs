//! SimGrid's SMP-aware allreduces written for SMP clusters (Pitch
//! Patarasuk's `smp_*` family): ranks `k * num_core .. (k + 1) * num_core`
//! are taken to share a host, where `num_core` is the ranks per host when
//! every host runs as many ([`Nodes::num_core`]), else 1. The rank
//! arithmetic does not look at the actual placement, as in SimGrid; only
//! `num_core` does. Every algorithm keeps rank order, so non-commutative
//! operations get `x_0 op ... op x_{p-1}` too.
//!
//! [`Nodes::num_core`]: crate::smp::Nodes::num_core

use crate::reduce::combine;
use crate::schedule::{recv, send, Block, Builder};

/// Binomial reduce of `acc` over the ranks `base + stride * i`,
/// `i < n`, towards `i = 0`, where the caller is `i = me`: each rank
/// receives from `me | mask` (blocking, one at a time) and folds it in,
/// until it sends its partial result to `me & !mask`.
fn binomial_reduce(
    b: &mut Builder,
    me: usize,
    n: usize,
    rank_of: impl Fn(usize) -> usize,
    acc: Block,
    incoming: Block,
    commutative: bool,
) {
    let mut mask = 1;
    while mask < n {
        if me & mask == 0 {
            let src = me | mask;
            if src < n {
                b.round(
                    vec![recv(rank_of(src), incoming)],
                    combine(incoming, acc, false, commutative),
                );
            }
        } else {
            b.round(vec![send(rank_of(me & !mask), acc)], vec![]);
            break;
        }
        mask <<= 1;
    }
}

/// Binomial broadcast of `data` from `i = 0` over `n` ranks `rank_of(i)`,
/// the caller being `i = me`.
fn binomial_bcast(
    b: &mut Builder,
    me: usize,
    n: usize,
    rank_of: impl Fn(usize) -> usize,
    data: Block,
) {
    let mut mask = 1;
    while mask < n {
        if me & mask != 0 {
            b.round(vec![recv(rank_of(me - mask), data)], vec![]);
            break;
        }
        mask <<= 1;
    }
    mask >>= 1;
    while mask > 0 {
        if me + mask < n {
            b.round(vec![send(rank_of(me + mask), data)], vec![]);
        }
        mask >>= 1;
    }
}

/// SimGrid's `smp_binomial`: a binomial reduce within each host, a
/// binomial reduce among the hosts' first ranks, a binomial bcast among
/// them, and a binomial bcast within each host, every step one blocking
/// send or receive.
pub(crate) fn smp_binomial(
    b: &mut Builder,
    rank: usize,
    size: usize,
    num_core: usize,
    input: Block,
    acc: Block,
    commutative: bool,
) {
    let count = acc.count;
    let incoming = b.tmp(count).block(0, count);
    let (intra, inter) = (rank % num_core, rank / num_core);
    let hosts = size.div_ceil(num_core);
    let base = inter * num_core;
    b.copy(input, acc);
    binomial_reduce(
        b,
        intra,
        num_core.min(size - base),
        |i| base + i,
        acc,
        incoming,
        commutative,
    );
    if intra == 0 {
        binomial_reduce(
            b,
            inter,
            hosts,
            |i| i * num_core,
            acc,
            incoming,
            commutative,
        );
        binomial_bcast(b, inter, hosts, |i| i * num_core, acc);
    }
    let here = if inter == hosts - 1 {
        size - base
    } else {
        num_core
    };
    // SimGrid sends to every rank below the communicator size, which with
    // a number of ranks per host that is not a power of two reaches into
    // the next host, where nobody receives: here, within the host only.
    binomial_bcast(b, intra, here, |i| base + i, acc);
}
