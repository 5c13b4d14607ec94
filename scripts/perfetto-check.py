#!/usr/bin/env python3
"""Decodes a Perfetto trace written by smpirun with Perfetto's own schema
(perfetto_trace_pb2 from the `perfetto` Python package) and prints what it
holds, one `key value` per line, for the tests to check:

  packets N          every packet decoded (the parse fails otherwise)
  tracks N           rank tracks (thread tracks) described
  slices RANK N      MPI call and computation slices begun on a rank's track
  unended RANK N     slices begun and not ended on a rank's track
  name NAME N        slices of each name, names resolved through interning
  flows N            flow ids that start on one slice and end on another
  counter_tracks N   link utilisation tracks described
  counters N         link utilisation values
  counter_max X      the largest of them (a fraction of the bandwidth)
  communicators N    slices whose communicator is named (MPI_COMM_WORLD...)
  algorithm NAME:ALGORITHMS N
                     slices of each name whose end names the collective
                     algorithms the call ran ("allreduce rdb"; spaces as _)
  unresolved N       events whose interned name is unknown (must be 0)

Usage: perfetto-check.py TRACE
"""
import collections
import sys

from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb


def main(path):
    trace = pb.Trace()
    with open(path, "rb") as f:
        trace.ParseFromString(f.read())
    names = {}
    rank_of_track = {}
    slices = collections.Counter()
    depth = collections.Counter()
    by_name = collections.Counter()
    started, ended = set(), set()
    unresolved = 0
    counter_tracks = set()
    counters, counter_max = 0, 0.0
    annotation_names = {}
    communicators = 0
    open_names = collections.defaultdict(list)
    algorithms = collections.Counter()
    for p in trace.packet:
        if p.sequence_flags & 1:
            names.clear()
        for n in p.interned_data.event_names:
            names[n.iid] = n.name
        for n in p.interned_data.debug_annotation_names:
            annotation_names[n.iid] = n.name
        if p.HasField("track_descriptor"):
            d = p.track_descriptor
            if d.HasField("thread"):
                rank_of_track[d.uuid] = d.thread.tid - 1
            if d.HasField("counter"):
                counter_tracks.add(d.uuid)
        if not p.HasField("track_event"):
            continue
        e = p.track_event
        if e.type == pb.TrackEvent.TYPE_COUNTER:
            if e.track_uuid not in counter_tracks:
                unresolved += 1
            counters += 1
            counter_max = max(counter_max, e.double_counter_value)
            continue
        rank = rank_of_track.get(e.track_uuid)
        if e.type == pb.TrackEvent.TYPE_SLICE_BEGIN:
            slices[rank] += 1
            for a in e.debug_annotations:
                if a.name_iid not in annotation_names:
                    unresolved += 1
                elif annotation_names[a.name_iid] == "communicator" and a.string_value:
                    communicators += 1
            depth[rank] += 1
            name = names.get(e.name_iid)
            open_names[rank].append(name)
            if name is None:
                unresolved += 1
            else:
                by_name[name] += 1
        elif e.type == pb.TrackEvent.TYPE_SLICE_END:
            depth[rank] -= 1
            name = open_names[rank].pop() if open_names[rank] else None
            for a in e.debug_annotations:
                if annotation_names.get(a.name_iid) == "algorithm":
                    algorithms[(name, a.string_value)] += 1
        elif e.type == pb.TrackEvent.TYPE_INSTANT and e.name_iid not in names:
            unresolved += 1
        started.update(e.flow_ids)
        ended.update(e.terminating_flow_ids)
    print("packets", len(trace.packet))
    print("tracks", len(rank_of_track))
    for rank in sorted(r for r in slices if r is not None):
        print("slices", rank, slices[rank])
        print("unended", rank, depth[rank])
    for name, n in sorted(by_name.items()):
        print("name", name.replace(" ", "_"), n)
    print("flows", len(started & ended))
    print("counter_tracks", len(counter_tracks))
    print("counters", counters)
    print("counter_max", counter_max)
    print("communicators", communicators)
    for (name, chosen), n in sorted(algorithms.items()):
        print("algorithm", "%s:%s" % (name, chosen.replace(" ", "_")), n)
    print("unresolved", unresolved)


if __name__ == "__main__":
    main(sys.argv[1])
