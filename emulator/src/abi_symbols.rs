//! The list of C entry points, in table order: the single source of truth
//! shared by the runtime's entry-point table (`abi`) and the shim that
//! `smpicc` links into every program (`cc`). Adding a function here and in
//! `abi` is all it takes to export it.

use std::hash::Hasher as _;

/// Calls `$m! { name, name, ... }` with every entry point.
macro_rules! with_abi_symbols {
    ($m:ident) => {
        $m! {
            MPI_Init, MPI_Init_thread, MPI_Finalize, MPI_Initialized, MPI_Finalized,
            MPI_Query_thread, MPI_Is_thread_main, MPI_Abort, MPI_Wtime, MPI_Wtick,
            MPI_Get_processor_name, MPI_Get_version, MPI_Get_library_version, MPI_Pcontrol,
            MPI_Comm_rank, MPI_Comm_size, MPI_Comm_dup, MPI_Comm_split, MPI_Comm_create,
            MPI_Comm_free, MPI_Comm_group, MPI_Comm_compare, MPI_Comm_test_inter,
            MPI_Comm_get_name, MPI_Comm_set_name, MPI_Comm_get_attr, MPI_Intercomm_create,
            MPI_Intercomm_merge, MPI_Comm_remote_size, MPI_Comm_remote_group, MPI_Comm_create_group,
            MPI_Comm_create_keyval, MPI_Comm_free_keyval, MPI_Comm_set_attr, MPI_Comm_delete_attr,
            MPI_Keyval_create, MPI_Keyval_free, MPI_Attr_put, MPI_Attr_get, MPI_Attr_delete,
            MPI_Type_create_keyval, MPI_Type_free_keyval, MPI_Type_set_attr, MPI_Type_get_attr,
            MPI_Type_delete_attr,
            MPI_Comm_idup, MPI_Comm_dup_with_info, MPI_Comm_idup_with_info, MPI_Comm_set_info,
            MPI_Comm_get_info, MPI_Comm_split_type, MPI_Dims_create, MPI_Type_extent, MPI_Type_lb, MPI_Type_ub, MPI_Type_struct,
            MPI_Errhandler_create, MPI_Errhandler_set, MPI_Errhandler_get,
            MPI_Cart_create, MPI_Cartdim_get, MPI_Cart_get, MPI_Cart_coords, MPI_Cart_rank,
            MPI_Cart_shift, MPI_Cart_sub, MPI_Cart_map, MPI_Topo_test, MPI_Graph_create,
            MPI_Graphdims_get, MPI_Graph_get, MPI_Graph_neighbors_count, MPI_Graph_neighbors,
            MPI_Graph_map, MPI_Dist_graph_create_adjacent, MPI_Dist_graph_create,
            MPI_Dist_graph_neighbors_count, MPI_Dist_graph_neighbors, MPI_Neighbor_allgather,
            MPI_Ineighbor_allgather, MPI_Neighbor_allgatherv, MPI_Ineighbor_allgatherv,
            MPI_Neighbor_alltoall, MPI_Ineighbor_alltoall, MPI_Neighbor_alltoallv,
            MPI_Ineighbor_alltoallv, MPI_Neighbor_alltoallw, MPI_Ineighbor_alltoallw,
            MPI_Group_size, MPI_Group_rank, MPI_Group_free, MPI_Group_incl, MPI_Group_excl,
            MPI_Group_range_incl, MPI_Group_range_excl, MPI_Group_translate_ranks,
            MPI_Group_compare, MPI_Group_union, MPI_Group_intersection, MPI_Group_difference,
            MPI_Send, MPI_Ssend, MPI_Bsend, MPI_Rsend, MPI_Isend, MPI_Issend, MPI_Ibsend,
            MPI_Irsend, MPI_Recv, MPI_Irecv, MPI_Sendrecv, MPI_Sendrecv_replace,
            MPI_Buffer_attach, MPI_Buffer_detach, MPI_Probe, MPI_Iprobe, MPI_Mprobe,
            MPI_Improbe, MPI_Mrecv, MPI_Imrecv, MPI_Wait, MPI_Waitall, MPI_Waitany,
            MPI_Waitsome, MPI_Test, MPI_Testall, MPI_Testany, MPI_Testsome,
            MPI_Request_free, MPI_Request_get_status, MPI_Cancel, MPI_Test_cancelled,
            MPI_Send_init, MPI_Ssend_init, MPI_Bsend_init, MPI_Rsend_init, MPI_Recv_init,
            MPI_Start, MPI_Startall, MPI_Isendrecv, MPI_Isendrecv_replace, MPI_Send_c,
            MPI_Isend_c, MPI_Irecv_c, MPI_Recv_c, MPI_Get_count_c, MPI_Grequest_start,
            MPI_Grequest_complete, MPI_Get_count, MPI_Get_elements, MPI_Get_elements_x,
            MPI_Status_set_elements, MPI_Status_set_elements_x, MPI_Status_set_cancelled,
            MPI_Type_size, MPI_Type_get_extent, MPI_Type_contiguous, MPI_Type_vector,
            MPI_Type_create_hvector, MPI_Type_hvector, MPI_Type_indexed,
            MPI_Type_create_hindexed, MPI_Type_hindexed, MPI_Type_create_indexed_block,
            MPI_Type_create_hindexed_block, MPI_Type_create_struct, MPI_Type_create_resized,
            MPI_Type_dup, MPI_Type_commit, MPI_Type_free, MPI_Type_get_true_extent,
            MPI_Type_get_extent_x, MPI_Type_get_true_extent_x, MPI_Type_size_x,
            MPI_Type_get_envelope, MPI_Type_set_name, MPI_Type_get_name, MPI_Get_address, MPI_Address, MPI_Aint_add, MPI_Aint_diff,
            MPI_Pack_size, MPI_Pack, MPI_Unpack, MPI_Type_create_subarray, MPI_Type_match_size, MPI_Type_create_f90_real, MPI_Type_create_f90_complex, MPI_Type_create_f90_integer, MPI_Type_create_darray, MPI_Type_get_contents, MPI_Pack_external_size,
            MPI_Pack_external, MPI_Unpack_external,
            MPI_Barrier, MPI_Bcast, MPI_Gather, MPI_Gatherv, MPI_Scatter, MPI_Scatterv,
            MPI_Allgather, MPI_Allgatherv, MPI_Alltoall, MPI_Alltoallv, MPI_Alltoallw, MPI_Reduce,
            MPI_Allreduce, MPI_Reduce_scatter, MPI_Reduce_scatter_block, MPI_Scan,
            MPI_Exscan, MPI_Op_create, MPI_Op_free, MPI_Op_commutative, MPI_Reduce_local,
            MPI_Ibarrier, MPI_Ibcast, MPI_Igather, MPI_Igatherv, MPI_Iscatter, MPI_Iscatterv,
            MPI_Iallgather, MPI_Iallgatherv, MPI_Ialltoall, MPI_Ialltoallv, MPI_Ireduce,
            MPI_Iallreduce, MPI_Ireduce_scatter, MPI_Ireduce_scatter_block, MPI_Iscan,
            MPI_Iexscan, MPI_Ialltoallw,
            MPI_Barrier_init, MPI_Bcast_init, MPI_Gather_init, MPI_Gatherv_init,
            MPI_Scatter_init, MPI_Scatterv_init, MPI_Allgather_init, MPI_Allgatherv_init,
            MPI_Alltoall_init, MPI_Alltoallv_init, MPI_Alltoallw_init, MPI_Reduce_init,
            MPI_Allreduce_init, MPI_Reduce_scatter_init, MPI_Reduce_scatter_block_init,
            MPI_Scan_init, MPI_Exscan_init, MPI_Neighbor_allgather_init,
            MPI_Neighbor_allgatherv_init, MPI_Neighbor_alltoall_init,
            MPI_Neighbor_alltoallv_init, MPI_Neighbor_alltoallw_init,
            MPI_Info_create, MPI_Info_set, MPI_Info_get, MPI_Info_get_valuelen, MPI_Info_delete,
            MPI_Info_get_nkeys, MPI_Info_get_nthkey, MPI_Info_dup, MPI_Info_free,
            MPI_Info_get_string, MPI_Info_create_env,
            MPI_Error_string, MPI_Error_class, MPI_Add_error_class, MPI_Add_error_code,
            MPI_Add_error_string, MPI_Comm_create_errhandler, MPI_Comm_call_errhandler, MPI_Comm_set_errhandler, MPI_Comm_get_errhandler,
            MPI_Errhandler_free, MPI_Comm_c2f, MPI_Comm_f2c, MPI_Group_c2f, MPI_Group_f2c,
            MPI_Type_c2f, MPI_Type_f2c, MPI_Request_c2f, MPI_Request_f2c, MPI_Op_c2f,
            MPI_Op_f2c, MPI_Errhandler_c2f, MPI_Errhandler_f2c, MPI_Message_c2f,
            MPI_Message_f2c, MPI_Info_c2f, MPI_Info_f2c,
            MPI_Alloc_mem, MPI_Free_mem, MPI_Win_create, MPI_Win_allocate,
            MPI_Win_allocate_shared, MPI_Win_create_dynamic, MPI_Win_shared_query,
            MPI_Win_attach, MPI_Win_detach, MPI_Win_free, MPI_Win_get_group, MPI_Win_set_info,
            MPI_Win_get_info, MPI_Win_set_name, MPI_Win_get_name, MPI_Win_fence, MPI_Win_lock,
            MPI_Win_unlock, MPI_Win_lock_all, MPI_Win_unlock_all, MPI_Win_flush,
            MPI_Win_flush_local, MPI_Win_flush_all, MPI_Win_flush_local_all, MPI_Win_sync,
            MPI_Win_post, MPI_Win_start, MPI_Win_complete, MPI_Win_wait, MPI_Win_test, MPI_Put,
            MPI_Rput, MPI_Get, MPI_Rget, MPI_Accumulate, MPI_Raccumulate, MPI_Get_accumulate,
            MPI_Rget_accumulate, MPI_Fetch_and_op, MPI_Compare_and_swap, MPI_Win_create_keyval,
            MPI_Win_free_keyval, MPI_Win_set_attr, MPI_Win_get_attr, MPI_Win_delete_attr,
            MPI_Win_create_errhandler, MPI_Win_set_errhandler, MPI_Win_get_errhandler,
            MPI_Win_call_errhandler, MPI_Win_c2f, MPI_Win_f2c, MPI_File_create_errhandler,
            MPI_File_set_errhandler, MPI_File_get_errhandler, MPI_File_call_errhandler,
            MPI_File_open, MPI_File_close, MPI_File_delete, MPI_File_set_size,
            MPI_File_preallocate, MPI_File_get_size, MPI_File_get_group, MPI_File_get_amode,
            MPI_File_set_info, MPI_File_get_info, MPI_File_set_view, MPI_File_get_view,
            MPI_File_get_type_extent, MPI_File_set_atomicity, MPI_File_get_atomicity,
            MPI_File_sync, MPI_File_seek, MPI_File_get_position, MPI_File_seek_shared,
            MPI_File_get_position_shared, MPI_File_get_byte_offset, MPI_File_read_at,
            MPI_File_read_at_all, MPI_File_write_at, MPI_File_write_at_all, MPI_File_iread_at,
            MPI_File_iread_at_all, MPI_File_iwrite_at, MPI_File_iwrite_at_all, MPI_File_read,
            MPI_File_read_all, MPI_File_write, MPI_File_write_all, MPI_File_iread,
            MPI_File_iread_all, MPI_File_iwrite, MPI_File_iwrite_all, MPI_File_read_shared,
            MPI_File_write_shared, MPI_File_iread_shared, MPI_File_iwrite_shared,
            MPI_File_read_ordered, MPI_File_write_ordered, MPI_File_read_at_all_begin,
            MPI_File_write_at_all_begin, MPI_File_read_all_begin, MPI_File_write_all_begin,
            MPI_File_read_ordered_begin, MPI_File_write_ordered_begin, MPI_File_read_at_all_end,
            MPI_File_write_at_all_end, MPI_File_read_all_end, MPI_File_write_all_end,
            MPI_File_read_ordered_end, MPI_File_write_ordered_end, MPI_File_c2f, MPI_File_f2c,
            smpi_sleep, smpi_usleep, smpi_nanosleep, smpi_gettimeofday, smpi_clock_gettime,
            smpi_exit, smpi_execute_flops, smpi_execute, smpi_execute_benched,
            smpi_execute_flops_benched, smpi_shared_malloc, smpi_shared_malloc_partial,
            smpi_shared_free, smpi_shared_unfold, smpi_shared_malloc_intercept, smpi_shared_calloc_intercept,
            smpi_shared_realloc_intercept,
            smpi_free, smpi_sample_cond, smpi_sample_iter, smpi_sample_exit, smpi_global_size,
            smpi_shared_known_call, smpi_shared_get_call, smpi_shared_set_call,
            smpi_xbt_log_enabled, smpi_xbt_log_message, xbt_log_control_set,
            sg_actor_self_get_pid, sg_actor_self_get_name, sg_actor_sleep_for, sg_actor_sleep_until,
            sg_actor_self, sg_actor_get_pid, sg_actor_get_name, sg_actor_init, sg_actor_start_,
            sg_actor_create_, sg_actor_set_data, sg_actor_get_data, sg_actor_self_set_data,
            sg_actor_self_get_data, SMPI_thread_create,
            sg_host_count, sg_host_by_name, sg_host_self, sg_host_get_name, sg_host_self_get_name,
            sg_host_get_speed, sg_host_get_pstate_speed, sg_host_core_count, sg_host_get_nb_pstates,
            sg_host_get_pstate, sg_host_set_pstate, sg_host_energy_plugin_init,
            sg_host_energy_update_all, sg_host_get_consumed_energy, sg_host_get_current_consumption,
            sg_host_get_idle_consumption, sg_host_get_idle_consumption_at, sg_host_get_wattmin_at,
            sg_host_get_wattmax_at, sg_host_get_power_range_slope_at,
            smpi_trace_set_call_location, TRACE_smpi_set_category, TRACE_category,
            TRACE_category_with_color,
            TRACE_declare_mark, TRACE_declare_mark_value, TRACE_declare_mark_value_with_color,
            TRACE_mark, TRACE_host_variable_declare, TRACE_host_variable_declare_with_color,
            TRACE_host_variable_set, TRACE_host_variable_add, TRACE_host_variable_sub,
            TRACE_host_variable_set_with_time, TRACE_host_variable_add_with_time,
            TRACE_host_variable_sub_with_time, TRACE_link_variable_declare,
            TRACE_link_variable_declare_with_color, TRACE_link_variable_set,
            TRACE_link_variable_add, TRACE_link_variable_sub, TRACE_link_variable_set_with_time,
            TRACE_link_variable_add_with_time, TRACE_link_variable_sub_with_time,
            TRACE_host_state_declare, TRACE_host_state_declare_value, TRACE_host_set_state,
            TRACE_host_push_state, TRACE_host_pop_state, smpi_getopt, smpi_getopt_long,
            smpi_getopt_long_only, __posix_getopt
        }
    };
}
pub(crate) use with_abi_symbols;

macro_rules! names_array {
    ($($name:ident),* $(,)?) => {
        /// Entry-point names, in table order.
        pub const ABI_NAMES: &[&str] = &[$(stringify!($name)),*];
    };
}
with_abi_symbols!(names_array);

/// Hash of the entry-point list: an application built against another list
/// must be rebuilt (its shim would jump to the wrong slots).
pub fn abi_hash() -> u64 {
    // FNV-1a over the bytes (`Hasher::write`, never `Hash::hash`, which
    // would add length prefixes or terminators of its own): the algorithm
    // is fixed, so the value is stable across Rust versions (unlike
    // DefaultHasher's) and equals what programs built earlier carry.
    let mut h = fnv::FnvHasher::default();
    h.write(ABI_NAMES.join("\n").as_bytes());
    h.write(b"\nsmpi-rs abi 1");
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_is_plain_fnv_1a() {
        // The published FNV-1a 64 test vectors.
        let fnv = |bytes: &[u8]| {
            let mut h = fnv::FnvHasher::default();
            h.write(bytes);
            h.finish()
        };
        assert_eq!(fnv(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv(b"foobar"), 0x8594_4171_f739_67e8);
        // Written in two parts or one, the same value.
        let mut joined = ABI_NAMES.join("\n").into_bytes();
        joined.extend_from_slice(b"\nsmpi-rs abi 1");
        assert_eq!(abi_hash(), fnv(&joined));
    }
}
